/// A query on one class, in the terms of Parse's REST API.
///
/// ```swift
/// let recent = ParseQuery("Messages")
///     .whereKey("threadId", equalTo: .string(threadId))
///     .order(by: "-createdAt")
///     .limit(20)
/// let messages = try await request.store.find(recent)
/// ```
public struct ParseQuery: Sendable, Hashable {
    /// The class to search.
    public var className: String
    /// Parse's `where` object: `{"score": {"$gt": 10}, "name": "x"}`.
    public var constraints: [String: ParseValue]
    /// Sort keys, `-` in front for descending.
    public var order: [String]
    /// At most this many results (Parse's default is 100).
    public var limit: Int
    /// Results to pass over first.
    public var skip: Int
    /// Only these fields in each result; nil for all.
    public var keys: [String]?
    /// Fields left out of each result (Parse's `excludeKeys`); nil for none.
    public var excludeKeys: [String]?
    /// Pointer fields whose objects are fetched and put in place.
    public var include: [String]

    /// The default `limit`, as in Parse.
    public static let defaultLimit = 100

    /// A query that matches every object of `className`.
    public init(
        _ className: String, constraints: [String: ParseValue] = [:], order: [String] = [],
        limit: Int = defaultLimit, skip: Int = 0, keys: [String]? = nil, include: [String] = [],
        excludeKeys: [String]? = nil
    ) {
        self.className = className
        self.constraints = constraints
        self.order = order
        self.limit = limit
        self.skip = skip
        self.keys = keys
        self.include = include
        self.excludeKeys = excludeKeys
    }

    /// Only objects whose `key` equals `value` (for an array field: contains it).
    public func whereKey(_ key: String, equalTo value: ParseValue) -> ParseQuery {
        var query = self
        query.constraints[key] = value
        return query
    }

    /// Only objects whose `key` satisfies the Parse operator `op` (`"$gt"`, `"$in"`, …) with `value`.
    public func whereKey(_ key: String, _ op: String, _ value: ParseValue) -> ParseQuery {
        var query = self
        var operators = query.constraints[key]?.objectValue ?? [:]
        operators[op] = value
        query.constraints[key] = .object(operators)
        return query
    }

    /// Only objects whose String field `key` matches the full-text search `text` (Parse's `$text`):
    /// any of its words, every `"quoted phrase"`, none of its `-words`. Words compare by their
    /// English stems unless `language` names another language, and fold case and diacritics unless
    /// the search is `caseSensitive` or `diacriticSensitive`. Sort by relevance with
    /// `order(by: "$score")`, and put `"$score"` in `keys` to have each result's `score`.
    public func matchesText(
        key: String, text: String, language: String? = nil, caseSensitive: Bool? = nil, diacriticSensitive: Bool? = nil
    ) -> ParseQuery {
        var search: [String: ParseValue] = ["$term": .string(text)]
        if let language { search["$language"] = .string(language) }
        if let caseSensitive { search["$caseSensitive"] = .bool(caseSensitive) }
        if let diacriticSensitive { search["$diacriticSensitive"] = .bool(diacriticSensitive) }
        return whereKey(key, "$text", .object(["$search": .object(search)]))
    }

    /// Sorted by `keys` (`"-createdAt"` for newest first).
    public func order(by keys: String...) -> ParseQuery {
        var query = self
        query.order = keys
        return query
    }

    /// At most `count` results.
    public func limit(_ count: Int) -> ParseQuery {
        var query = self
        query.limit = count
        return query
    }
}
