import Cloudlet

/// The body of a create or update, read into field changes and an ACL, with Parse's checks: field
/// names, value types, field operations.
struct WriteBody {
    var changes: ObjectChanges

    /// Members a client may send that are not fields and are ignored, as Parse does.
    private static let ignoredMembers: Set<String> = ["createdAt", "updatedAt", "className", "__type"]

    init(_ body: [String: ParseValue], isCreate: Bool) throws(ParseError) {
        var fields: [String: FieldChange] = [:]
        var acl: ParseACL?
        for (key, value) in body {
            if Self.ignoredMembers.contains(key) { continue }
            switch key {
            case "ACL":
                guard let parsed = ParseACL(json: value) else { throw .incorrectType("invalid ACL") }
                acl = parsed
            case "objectId":
                guard !isCreate else { throw .invalidKeyName("objectId") }
            default:
                try ParseNames.validateFieldName(key)
                if let operation = try FieldOperation.parse(value, field: key) {
                    fields[key] = .operation(operation)
                } else {
                    _ = try ParseFieldType.of(value, field: key)
                    fields[key] = .set(value)
                }
            }
        }
        changes = ObjectChanges(fields: fields, acl: acl)
    }

    /// Checks what a before hook left in an object: the same rules as for a client's body.
    static func validate(_ object: ParseObject) throws(ParseError) {
        for (key, value) in object.fields {
            try ParseNames.validateFieldName(key)
            _ = try ParseFieldType.of(value, field: key)
        }
    }
}
