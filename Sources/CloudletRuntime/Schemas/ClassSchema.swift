import Cloudlet

/// One class's schema as storage keeps it: the types its fields were first written with (or
/// declared through `/schemas`), its CLP document (nil until set) and its indexes.
public struct StoredClassSchema: Sendable, Hashable {
    /// The class name.
    public var className: String
    /// Each field's type, by field name (the default fields aside).
    public var fieldTypes: [String: ParseFieldType]
    /// The class-level permissions, nil while they were never set (open).
    public var permissions: ClassLevelPermissions?
    /// The indexes made through `/schemas`, by name: the fields each orders, in order, and their direction (1 or -1).
    public var indexes: [String: [IndexKey]]

    /// One field of an index.
    public struct IndexKey: Sendable, Hashable {
        public var field: String
        public var ascending: Bool

        public init(field: String, ascending: Bool) {
            self.field = field
            self.ascending = ascending
        }
    }

    public init(className: String, fieldTypes: [String: ParseFieldType] = [:], permissions: ClassLevelPermissions? = nil, indexes: [String: [IndexKey]] = [:]) {
        self.className = className
        self.fieldTypes = fieldTypes
        self.permissions = permissions
        self.indexes = indexes
    }

    /// The CLPs that apply: those set, or ``ClassLevelPermissions/open``.
    public var effectivePermissions: ClassLevelPermissions { permissions ?? .open }

    /// Every field as Parse types it, the default fields of every class and of this class included
    /// (nil for `ACL`, a type of the default field only).
    public var allFields: [String: ParseFieldType?] {
        var fields: [String: ParseFieldType?] = ["objectId": .string, "createdAt": .date, "updatedAt": .date, "ACL": nil]
        for (name, type) in Self.defaultFields[className] ?? [:] { fields[name] = type }
        for (name, type) in fieldTypes { fields[name] = type }
        return fields
    }

    /// The schema as `/schemas` answers it: `className`, `fields`, `classLevelPermissions`, `indexes`.
    public var json: ParseValue {
        let fields = allFields.mapValues { $0?.schemaJSON ?? ["type": "ACL"] }
        var indexJSON: [String: ParseValue] = ["_id_": ["_id": 1]]
        for (name, keys) in indexes {
            indexJSON[name] = .object(Dictionary(keys.map { ($0.field, ParseValue.number($0.ascending ? 1 : -1)) }, uniquingKeysWith: { a, _ in a }))
        }
        return [
            "className": .string(className), "fields": .object(fields), "classLevelPermissions": effectivePermissions.json,
            "indexes": .object(indexJSON),
        ]
    }

    /// The fields Parse gives its own classes beyond `objectId`, `createdAt`, `updatedAt` and `ACL`.
    public static let defaultFields: [String: [String: ParseFieldType]] = [
        "_User": ["username": .string, "password": .string, "email": .string, "emailVerified": .boolean, "authData": .object],
        "_Installation": [
            "installationId": .string, "deviceToken": .string, "channels": .array, "deviceType": .string, "pushType": .string,
            "GCMSenderId": .string, "timeZone": .string, "localeIdentifier": .string, "badge": .number, "appVersion": .string,
            "appName": .string, "appIdentifier": .string, "parseVersion": .string,
        ],
        "_Role": ["name": .string, "users": .relation(targetClass: "_User"), "roles": .relation(targetClass: "_Role")],
        "_Session": [
            "user": .pointer(targetClass: "_User"), "installationId": .string, "sessionToken": .string, "expiresAt": .date,
            "createdWith": .object,
        ],
    ]

    /// The system classes every app's schema lists, whether or not they hold objects.
    public static let listedSystemClasses = ["_User", "_Role", "_Installation", "_Session"]
}
