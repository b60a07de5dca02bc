/// Operators whose operand is another query, and the other list operators, as typed calls.
///
/// ```swift
/// let admins = ParseQuery("_User").whereKey("isAdmin", equalTo: true)
/// let posts = ParseQuery("Posts")
///     .whereKey("author", matchesQuery: admins)
///     .excludeKeys("body")
/// ```
extension ParseQuery {
    /// Only objects whose pointer `key` points to an object `query` finds (`$inQuery`). The inner
    /// query reads as the outer one does: it finds only objects its caller may read.
    public func whereKey(_ key: String, matchesQuery query: ParseQuery) -> ParseQuery {
        whereKey(key, "$inQuery", query.innerQuery)
    }

    /// Only objects whose pointer `key` does not point to an object `query` finds (`$notInQuery`).
    public func whereKey(_ key: String, doesNotMatchQuery query: ParseQuery) -> ParseQuery {
        whereKey(key, "$notInQuery", query.innerQuery)
    }

    /// Only objects whose `key` equals the `queryKey` of an object `query` finds (`$select`).
    public func whereKey(_ key: String, matchesKey queryKey: String, in query: ParseQuery) -> ParseQuery {
        whereKey(key, "$select", ["query": query.innerQuery, "key": .string(queryKey)])
    }

    /// Only objects whose `key` equals the `queryKey` of no object `query` finds (`$dontSelect`).
    public func whereKey(_ key: String, doesNotMatchKey queryKey: String, in query: ParseQuery) -> ParseQuery {
        whereKey(key, "$dontSelect", ["query": query.innerQuery, "key": .string(queryKey)])
    }

    /// Only objects whose array `key` holds nothing but elements of `values` (`$containedBy`).
    public func whereKey(_ key: String, containedBy values: [ParseValue]) -> ParseQuery {
        whereKey(key, "$containedBy", .array(values))
    }

    /// Each result without the fields `keys` (Parse's `excludeKeys`; `author.email` for a field of
    /// an included object).
    public func excludeKeys(_ keys: String...) -> ParseQuery {
        var query = self
        query.excludeKeys = keys
        return query
    }

    /// The query as an operand: `{"className", "where"}`.
    private var innerQuery: ParseValue {
        ["className": .string(className), "where": .object(constraints)]
    }
}

extension ParseQuery {
    /// Only the objects of this query's class in the relation `key` of the object `object` (a
    /// pointer) points to (`$relatedTo`). The objects found are only those the caller may read.
    public func whereRelatedTo(object: ParseValue, key: String) -> ParseQuery {
        var query = self
        query.constraints["$relatedTo"] = ["object": object, "key": .string(key)]
        return query
    }
}
