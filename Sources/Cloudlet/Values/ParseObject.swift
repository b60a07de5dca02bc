import Foundation

/// One Parse object: its class, its identity and timestamps (set by the server), its ACL and its fields.
///
/// Fields are read and written by subscript; `objectId`, `createdAt`, `updatedAt` and `ACL` are kept
/// apart from the fields, as Parse does.
public struct ParseObject: Sendable, Hashable {
    /// The class (collection) the object belongs to, such as `"Messages"`.
    public var className: String
    /// The object's id; nil until it is first saved.
    public var objectId: String?
    /// When the object was first saved.
    public var createdAt: Date?
    /// When the object was last saved.
    public var updatedAt: Date?
    /// Who may read and write the object; nil means everyone (Parse's default).
    public var acl: ParseACL?
    /// The object's own fields.
    public var fields: [String: ParseValue]

    /// An object of `className` with the given fields.
    public init(
        className: String, objectId: String? = nil, createdAt: Date? = nil, updatedAt: Date? = nil,
        acl: ParseACL? = nil, fields: [String: ParseValue] = [:]
    ) {
        self.className = className
        self.objectId = objectId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.acl = acl
        self.fields = fields
    }

    /// The field named `key`; setting nil removes it.
    public subscript(key: String) -> ParseValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// Whether the object has never been saved.
    public var isNew: Bool { objectId == nil }

    /// A Parse `Pointer` to this object (which must have been saved).
    public var pointer: ParseValue? {
        objectId.map { .pointer(className: className, objectId: $0) }
    }

    /// The object as Parse's REST API shows it: fields plus `objectId`, `createdAt`, `updatedAt`, `ACL`.
    public var json: [String: ParseValue] {
        var result = fields
        if let objectId { result["objectId"] = .string(objectId) }
        if let createdAt { result["createdAt"] = .string(ParseDate.string(from: createdAt)) }
        if let updatedAt { result["updatedAt"] = .string(ParseDate.string(from: updatedAt)) }
        if let acl { result["ACL"] = acl.json }
        return result
    }

    /// Reads an object of `className` from its REST form (the inverse of ``json``).
    /// Members that are not fields (`objectId`, timestamps, `ACL`, `className`, `__type`) are taken apart.
    public init(className: String, json: [String: ParseValue]) {
        var fields = json
        let objectId = fields.removeValue(forKey: "objectId")?.stringValue
        let createdAt = fields.removeValue(forKey: "createdAt")?.dateValue
        let updatedAt = fields.removeValue(forKey: "updatedAt")?.dateValue
        let acl = fields.removeValue(forKey: "ACL").flatMap(ParseACL.init(json:))
        fields.removeValue(forKey: "className")
        fields.removeValue(forKey: "__type")
        self.init(
            className: className, objectId: objectId, createdAt: createdAt, updatedAt: updatedAt, acl: acl,
            fields: fields)
    }
}
