import Cloudlet
import CloudletRuntime
import GRDB

extension SQLiteQueryBuilder {
    /// `$relatedTo`: the row is one of the objects in the relation `key` of the object `object`
    /// points to, found through the join table's key. The row must still pass the reader's ACL test
    /// like every other row; the owning object itself is not read. Throws 102 for a malformed operand.
    mutating func relatedTo(_ operand: ParseValue) throws -> String {
        guard let members = operand.objectValue, members.count == 2,
            let owner = members["object"]?.pointerValue, (try? ParseNames.validateClassName(owner.className)) != nil,
            !owner.objectId.isEmpty, let key = members["key"]?.stringValue, (try? ParseNames.validateFieldName(key)) != nil
        else {
            throw ParseError.invalidQuery("$relatedTo needs an object (a pointer) and the key of one of its relation fields")
        }
        arguments += [owner.className, owner.objectId, key, className]
        return """
            (id IN (SELECT related_id FROM relations \
            WHERE owning_class = ? AND owning_id = ? AND field = ? AND related_class = ?))
            """
    }
}
