import Cloudlet
import CloudletRuntime
import GRDB

extension SQLiteQueryBuilder {
    /// `$relatedTo`: the row is one of the objects in the relation `key` of the object `object`
    /// points to, found through the join table's key. The row must still pass the reader's ACL test
    /// like every other row; the owning object itself is not read. Throws 102 for a malformed operand.
    /// The test is marked `unlikely`, so that SQLite looks the few related rows up by their key
    /// rather than walk the whole class in the order it sorts by and test each row.
    mutating func relatedTo(_ operand: ParseValue) throws -> String {
        let (owner, key) = try QueryTerms.relatedTo(operand)
        arguments += [owner.className, owner.objectId, key, className]
        return """
            unlikely(objects.id IN (SELECT related_id FROM relations \
            WHERE owning_class = ? AND owning_id = ? AND field = ? AND related_class = ?))
            """
    }

    /// For a top-level field that is a relation, the test that it relates an object whose id
    /// `comparand` (one id or a list of them) accepts: Parse's equality, `$in`, `$ne` and `$nin`
    /// with pointers on a relation field. Nil for a dotted path or an inner query's rows (an inner
    /// query tests every kind of link at once: see `links`). The owners are found once, through
    /// the join table's index by related id; each row's field must hold a `Relation`.
    mutating func relationMatch(_ field: QueryField, _ comparand: Comparand) -> String? {
        switch comparand {
        case .value, .anyOf: break
        case .column, .anyRow: return nil
        }
        guard !field.path.contains(".") else { return nil }
        arguments += [field.jsonPath + ".__type"]
        let related = "related_id" + comparand.sql(&arguments)
        arguments += [className, field.path]
        return """
            (json_extract(data, ?) = 'Relation' AND objects.id IN (SELECT owning_id FROM relations \
            WHERE \(related) AND owning_class = ? AND field = ?))
            """
    }
}
