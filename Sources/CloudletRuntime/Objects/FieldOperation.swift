import Cloudlet

/// A Parse field operation (`{"__op": "Increment", "amount": 1}` and the like), applied to a field's
/// current value inside the write transaction, so that concurrent increments do not lose updates.
public enum FieldOperation: Sendable, Hashable {
    case increment(Double)
    case add([ParseValue])
    case addUnique([ParseValue])
    case remove([ParseValue])
    case delete
    /// Objects added to and removed from a relation field (`AddRelation`, `RemoveRelation`, `Batch`).
    case relation(RelationChange)

    /// The operation `value` describes, or nil if `value` is not an `__op` object.
    /// Throws 111 for an unknown operation or a wrong argument, 107 for a relation operation past
    /// ``RelationChange/maximumObjects``.
    public static func parse(_ value: ParseValue, field: String) throws(ParseError) -> FieldOperation? {
        guard let name = value["__op"] else { return nil }
        if let change = try RelationChange.parse(value, field: field) { return .relation(change) }
        switch name.stringValue {
        case "Increment":
            guard let amount = value["amount"]?.doubleValue else {
                throw .incorrectType("Increment on \(field) needs a number amount")
            }
            return .increment(amount)
        case "Add", "AddUnique", "Remove":
            guard let objects = value["objects"]?.arrayValue else {
                throw .incorrectType("\(name.stringValue!) on \(field) needs an objects array")
            }
            for object in objects { _ = try ParseFieldType.of(object, field: field) }
            switch name.stringValue {
            case "Add": return .add(objects)
            case "AddUnique": return .addUnique(objects)
            default: return .remove(objects)
            }
        case "Delete":
            return .delete
        default:
            throw .incorrectType("unknown field operation \(name.stringValue.map { "\"\($0)\"" } ?? "") on \(field)")
        }
    }

    /// The field's new value given its `current` one; nil removes the field.
    /// Throws 111 when the current value has a type the operation cannot work on.
    public func apply(to current: ParseValue?, field: String) throws(ParseError) -> ParseValue? {
        switch self {
        case .delete:
            return nil
        case .relation(let change):
            return try change.fieldValue(replacing: current, field: field)
        case .increment(let amount):
            switch current {
            case nil, .null?: return .number(amount)
            case .number(let number)?: return .number(number + amount)
            default: throw .incorrectType("cannot increment \(field): it is not a number")
            }
        case .add(let objects), .addUnique(let objects), .remove(let objects):
            var elements: [ParseValue]
            switch current {
            case nil, .null?: elements = []
            case .array(let existing)?: elements = existing
            default: throw .incorrectType("cannot change \(field) as an array: it is not one")
            }
            switch self {
            case .add: elements += objects
            case .addUnique: for object in objects where !elements.contains(object) { elements.append(object) }
            default: elements.removeAll { objects.contains($0) }
            }
            return .array(elements)
        }
    }
}

/// One change to one field of an object, as a write asks for it.
public enum FieldChange: Sendable, Hashable {
    /// Sets the field to a value.
    case set(ParseValue)
    /// Applies an operation to the field's current value.
    case operation(FieldOperation)
}
