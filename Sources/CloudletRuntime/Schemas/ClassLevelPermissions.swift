import Cloudlet

/// A class's class-level permissions (CLPs), as Parse Server reads and answers them: who may do
/// each operation (`*`, `requiresAuthentication`, user ids, `role:` names, and `pointerFields`
/// naming fields that must point at the user), the fields whose users may read
/// (`readUserFields`) or write (`writeUserFields`) each object, and the fields hidden from some
/// readers (`protectedFields` per `*`, `authenticated`, role, user id or `userField:`).
///
/// A class whose CLPs were never set is open (``open``); once set, an operation the document leaves
/// out is the master key's only, as in Parse Server.
public struct ClassLevelPermissions: Sendable, Hashable {
    /// An operation a CLP document grants.
    public enum Operation: String, Sendable, CaseIterable {
        case find, count, get, create, update, delete, addField

        /// Whether the operation reads (and so `readUserFields` grant it).
        var reads: Bool { self == .find || self == .count || self == .get }
    }

    /// Who may do one operation.
    public struct Grant: Sendable, Hashable {
        /// `*`, `requiresAuthentication`, user ids and `role:` names, each granted.
        public var entries: Set<String> = []
        /// Fields (pointers to `_User`, or arrays of them) whose users may do the operation on that object.
        public var pointerFields: [String] = []
    }

    /// The most entries (grants, pointer fields, protected fields) one document may hold.
    public static let maximumEntries = 1000

    /// Each operation's grant; an operation missing here is the master key's only.
    public var grants: [Operation: Grant]
    /// Fields whose users may read the object (for `get`, `find`, `count`).
    public var readUserFields: [String] = []
    /// Fields whose users may change or delete the object.
    public var writeUserFields: [String] = []
    /// The fields hidden from readers, by `*`, `authenticated`, `role:<name>`, a user id or `userField:<field>`.
    public var protectedFields: [String: [String]] = [:]

    /// Every operation open to everyone, nothing protected: a class's CLPs until they are set.
    public static let open = ClassLevelPermissions(
        grants: Dictionary(uniqueKeysWithValues: Operation.allCases.map { ($0, Grant(entries: ["*"])) }), protectedFields: ["*": []])

    public init(grants: [Operation: Grant], readUserFields: [String] = [], writeUserFields: [String] = [], protectedFields: [String: [String]] = [:]) {
        self.grants = grants
        self.readUserFields = readUserFields
        self.writeUserFields = writeUserFields
        self.protectedFields = protectedFields
    }

    /// Reads a CLP document, checked as Parse Server checks it against the class's `fields` (with
    /// its default fields): 107 for an unknown operation or entry, a value other than `true`, a
    /// pointer field that is not a pointer to `_User` or an array, a protected field the class does
    /// not have, or more than ``maximumEntries`` entries.
    public init(json: ParseValue, fields: [String: ParseFieldType?]) throws(ParseError) {
        guard let document = json.objectValue else { throw .invalidJSON("classLevelPermissions must be an object") }
        grants = [:]
        var entryCount = 0
        func count(_ added: Int) throws(ParseError) {
            entryCount += added
            guard entryCount <= Self.maximumEntries else {
                throw .invalidJSON("classLevelPermissions may hold at most \(Self.maximumEntries) entries")
            }
        }
        for (key, value) in document {
            switch key {
            case "readUserFields", "writeUserFields":
                guard let names = value.arrayValue else {
                    throw .invalidJSON("'\(value)' is not a valid value for class level permissions \(key) - must be an array")
                }
                try count(names.count)
                let checked = try names.map { name throws(ParseError) in try Self.pointerField(name, fields, key) }
                if key == "readUserFields" { readUserFields = checked } else { writeUserFields = checked }
            case "protectedFields":
                guard let members = value.objectValue else {
                    throw .invalidJSON("'\(value)' is not a valid value for class level permissions protectedFields - must be an object")
                }
                for (entity, hidden) in members {
                    guard entity == "*" || entity == "authenticated" || entity.hasPrefix("role:") || entity.hasPrefix("userField:") || Self.isUserId(entity)
                    else { throw .invalidJSON("'\(entity)' is not a valid key for class level permissions") }
                    guard let names = hidden.arrayValue else {
                        throw .invalidJSON("'\(hidden)' is not a valid value for protectedFields[\(entity)] - expected an array.")
                    }
                    try count(names.count + 1)
                    protectedFields[entity] = try names.map { name throws(ParseError) in
                        guard let field = name.stringValue else { throw .invalidJSON("protectedFields[\(entity)] must name fields") }
                        guard !ParseNames.reservedFields.contains(field) else { throw .invalidJSON("Default field '\(field)' can not be protected") }
                        guard fields[field] != nil else { throw .invalidJSON("Field '\(field)' in protectedFields:\(entity) does not exist") }
                        return field
                    }
                }
            default:
                guard let operation = Operation(rawValue: key) else {
                    throw .invalidJSON("\(key) is not a valid operation for class level permissions")
                }
                guard let members = value.objectValue else {
                    throw .invalidJSON("'\(value)' is not a valid value for class level permissions \(key) - must be an object")
                }
                try count(members.count)
                var grant = Grant()
                for (entity, permit) in members {
                    if entity == "pointerFields" {
                        guard let names = permit.arrayValue else {
                            throw .invalidJSON("'\(permit)' is not a valid value for \(key)[pointerFields] - expected an array.")
                        }
                        try count(names.count)
                        grant.pointerFields = try names.map { name throws(ParseError) in try Self.pointerField(name, fields, key) }
                        continue
                    }
                    guard entity == "*" || entity == "requiresAuthentication" || entity.hasPrefix("role:") || Self.isUserId(entity) else {
                        throw .invalidJSON("'\(entity)' is not a valid key for class level permissions")
                    }
                    guard permit == true else {
                        throw .invalidJSON("'\(permit)' is not a valid value for class level permissions \(key):\(entity):\(permit)")
                    }
                    grant.entries.insert(entity)
                }
                grants[operation] = grant
            }
        }
    }

    /// The document as `/schemas` answers it: every operation (`{}` for the master key's only) and
    /// `protectedFields`, with `readUserFields`/`writeUserFields` when set.
    public var json: ParseValue {
        var document: [String: ParseValue] = [:]
        for operation in Operation.allCases {
            let grant = grants[operation] ?? Grant()
            var members = Dictionary(uniqueKeysWithValues: grant.entries.map { ($0, ParseValue.bool(true)) })
            if !grant.pointerFields.isEmpty { members["pointerFields"] = .array(grant.pointerFields.map(ParseValue.string)) }
            document[operation.rawValue] = .object(members)
        }
        if !readUserFields.isEmpty { document["readUserFields"] = .array(readUserFields.map(ParseValue.string)) }
        if !writeUserFields.isEmpty { document["writeUserFields"] = .array(writeUserFields.map(ParseValue.string)) }
        document["protectedFields"] = .object(protectedFields.mapValues { .array($0.map(ParseValue.string)) })
        return .object(document)
    }

    /// A user id as CLP entries name them: letters and digits.
    private static func isUserId(_ entity: String) -> Bool {
        !entity.isEmpty && entity.utf8.count <= 128 && entity.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    /// `name`, checked to be a field of the class that holds a pointer to `_User` or an array.
    private static func pointerField(_ name: ParseValue, _ fields: [String: ParseFieldType?], _ operation: String) throws(ParseError) -> String {
        guard let field = name.stringValue, let type = fields[field] ?? nil, type == .pointer(targetClass: "_User") || type == .array else {
            throw .invalidJSON("'\(name.stringValue ?? "\(name)")' is not a valid column for class level pointer permissions \(operation)")
        }
        return field
    }
}
