import Cloudlet
import NIOCore

/// The body of a create or update, read into field changes and an ACL, with Parse's checks: field
/// names, value types, field operations.
struct WriteBody {
    var changes: ObjectChanges
    /// The body's JSON as it came, when it is the REST JSON of the object a create makes of it:
    /// every member sets a field to a string, a number or a boolean, or is the ACL, so nothing in
    /// it is rewritten. A worker's before hook is sent these bytes instead of the object encoded again.
    private(set) var asSent: ByteBuffer?

    /// Members a client may send that are not fields and are ignored, as Parse does.
    private static let ignoredMembers: Set<String> = ["createdAt", "updatedAt", "className", "__type"]

    /// The changes `body` asks for; `json` is the body's JSON as it came, if the caller has it.
    init(_ body: [String: ParseValue], isCreate: Bool, json: ByteBuffer? = nil) throws(ParseError) {
        var fields: [String: FieldChange] = [:]
        var acl: ParseACL?
        var verbatim = isCreate && json != nil
        for (key, value) in body {
            if Self.ignoredMembers.contains(key) {
                verbatim = false
                continue
            }
            switch key {
            case "ACL":
                guard let parsed = ParseACL(json: value) else { throw .incorrectType("invalid ACL") }
                acl = parsed
            case "objectId":
                guard !isCreate else { throw .invalidKeyName("objectId") }
            default:
                try ParseNames.validateFieldName(key)
                switch value {
                case .string, .number, .bool:
                    fields[key] = .set(value)
                default:
                    verbatim = false
                    if let operation = try FieldOperation.parse(value, field: key) {
                        fields[key] = .operation(operation)
                    } else {
                        _ = try ParseFieldType.of(value, field: key)
                        fields[key] = .set(Self.normalized(value))
                    }
                }
            }
        }
        changes = ObjectChanges(fields: fields, acl: acl)
        asSent = verbatim ? json : nil
    }

    /// Checks every field of `object` by the same rules as a client's body, and returns it with
    /// its dates and polygons normalised.
    static func validated(_ object: ParseObject) throws(ParseError) -> ParseObject {
        var object = object
        for (key, value) in object.fields { object.fields[key] = try checked(value, field: key) }
        return object
    }

    /// `value` of the field `field`, named and typed as a client's body must, as it is stored.
    private static func checked(_ value: ParseValue, field: String) throws(ParseError) -> ParseValue {
        try ParseNames.validateFieldName(field)
        _ = try ParseFieldType.of(value, field: field)
        return normalized(value)
    }

    /// `proposed` (already checked, the object a before hook was given) with what the hook
    /// changed, each field it set checked by the same rules as a client's body; and the names of
    /// the fields it set or removed. Members that are not fields (the id, the dates) are the
    /// host's to set, and ignored.
    static func applying(_ patch: ObjectPatch, to proposed: ParseObject) throws(ParseError) -> (object: ParseObject, fields: Set<String>) {
        var object = proposed
        var fields: Set<String> = []
        for (key, value) in patch.set where !notFields.contains(key) {
            if key == "ACL" {
                guard let acl = ParseACL(json: value) else { throw .incorrectType("invalid ACL") }
                object.acl = acl
            } else {
                object.fields[key] = try checked(value, field: key)
                fields.insert(key)
            }
        }
        for key in patch.unset where !notFields.contains(key) {
            if key == "ACL" {
                object.acl = nil
            } else if object.fields.removeValue(forKey: key) != nil {
                fields.insert(key)
            }
        }
        return (object, fields)
    }

    /// Members of an object's REST form a hook's answer cannot change.
    private static let notFields: Set<String> = ["objectId", "createdAt", "updatedAt", "className", "__type"]

    /// `value` as it is stored: every Parse `Date` written in Parse's exact format (`.SSS`
    /// milliseconds, UTC), so that stored dates compare and sort as instants, and every `Polygon`'s
    /// ring closed.
    static func normalized(_ value: ParseValue) -> ParseValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(normalized))
        case .object(let members):
            if value.parseType == "Date", let date = value.dateValue { return .date(date) }
            if value.parseType == "Polygon" { return ParsePolygon.closed(value) }
            return .object(members.mapValues(normalized))
        default:
            return value
        }
    }
}
