import Cloudlet

/// What a write does to one relation field: the ids of the objects of `targetClass` it adds and
/// those it removes, from Parse's `AddRelation`, `RemoveRelation` and `Batch` (of both) operations.
/// The join rows change in the write's own transaction.
public struct RelationChange: Sendable, Hashable {
    /// The most pointers one relation operation (or one `Batch` of them) may name; more answer 107.
    public static let maximumObjects = 1_000

    /// The class every related object belongs to.
    public var targetClass: String
    /// The ids of the objects added to the relation.
    public var adding: Set<String> = []
    /// The ids of the objects removed from it.
    public var removing: Set<String> = []

    /// The change `value` describes, an `AddRelation`, a `RemoveRelation` or a `Batch` of them; nil
    /// for any other value. Throws 111 for an empty operation or pointers that are malformed or of
    /// more than one class, 107 for more than ``maximumObjects`` pointers.
    static func parse(_ value: ParseValue, field: String) throws(ParseError) -> RelationChange? {
        switch value["__op"]?.stringValue {
        case "AddRelation", "RemoveRelation":
            return try combined([value], field: field)
        case "Batch":
            guard let ops = value["ops"]?.arrayValue, !ops.isEmpty,
                ops.allSatisfy({ ["AddRelation", "RemoveRelation"].contains($0["__op"]?.stringValue) })
            else { throw .incorrectType("Batch on \(field) needs a list of AddRelation and RemoveRelation operations") }
            return try combined(ops, field: field)
        default:
            return nil
        }
    }

    /// The operations `ops`, applied in order, as one change.
    private static func combined(_ ops: [ParseValue], field: String) throws(ParseError) -> RelationChange {
        var change: RelationChange?
        var count = 0
        for op in ops {
            let isAdd = op["__op"]?.stringValue == "AddRelation"
            guard let objects = op["objects"]?.arrayValue, !objects.isEmpty else {
                throw .incorrectType("\(isAdd ? "AddRelation" : "RemoveRelation") on \(field) needs a non-empty objects array")
            }
            count += objects.count
            guard count <= maximumObjects else {
                throw .invalidJSON("a relation operation on \(field) may name at most \(maximumObjects) objects")
            }
            for object in objects {
                guard case .pointer(let target)? = try? ParseFieldType.of(object, field: field), let id = object.pointerValue?.objectId else {
                    throw .incorrectType("a relation operation on \(field) needs pointers")
                }
                if change == nil { change = RelationChange(targetClass: target) }
                guard change!.targetClass == target else {
                    throw .incorrectType("a relation operation on \(field) needs pointers of one class")
                }
                change!.record(id, added: isAdd)
            }
        }
        return change!
    }

    /// Records that `id` is added (or removed), undoing an earlier opposite step for it.
    private mutating func record(_ id: String, added: Bool) {
        if added {
            removing.remove(id)
            adding.insert(id)
        } else {
            adding.remove(id)
            removing.insert(id)
        }
    }

    /// The value the relation field holds once the change applies to `current`. Throws 111 when the
    /// field holds something other than a relation to the same class.
    func fieldValue(replacing current: ParseValue?, field: String) throws(ParseError) -> ParseValue {
        switch current {
        case nil, .null?:
            return .relation(className: targetClass)
        case let value? where value.relationClassName == targetClass:
            return value
        default:
            throw .incorrectType("\(field) is not a relation to \(targetClass)")
        }
    }
}
