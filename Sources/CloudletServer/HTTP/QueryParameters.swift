import Cloudlet

/// Reads Parse's query parameters (`where`, `order`, `limit`, `skip`, `keys`, `excludeKeys`,
/// `include`, `count`), which arrive as URL strings (JSON-encoded where they are structured) or,
/// from the JavaScript SDK, as JSON values in the body.
struct QueryParameters {
    var query: ParseQuery
    var count: Bool

    init(className: String, _ parameters: [String: ParseValue]) throws(ParseError) {
        query = ParseQuery(className)
        count = false
        if let whereValue = parameters["where"] {
            let parsed = try Self.json(whereValue, "where")
            guard let constraints = parsed.objectValue else { throw .invalidQuery("where must be a JSON object") }
            query.constraints = constraints
        }
        if let order = parameters["order"] { query.order = try Self.list(order, "order") }
        if let keys = parameters["keys"] { query.keys = try Self.list(keys, "keys") }
        if let excluded = parameters["excludeKeys"] { query.excludeKeys = try Self.list(excluded, "excludeKeys") }
        if let include = parameters["include"] { query.include = try Self.list(include, "include") }
        if let limit = parameters["limit"] { query.limit = try Self.integer(limit, "limit") }
        if let skip = parameters["skip"] { query.skip = try Self.integer(skip, "skip") }
        if let count = parameters["count"] {
            switch count {
            case .bool(let flag): self.count = flag
            case .number(let number): self.count = number != 0
            case .string(let text): self.count = ["1", "true"].contains(text)
            default: throw .invalidQuery("count must be 1 or true")
            }
        }
        guard query.limit >= 0 else { throw .invalidQuery("limit must not be negative") }
        guard query.skip >= 0 else { throw .invalidQuery("skip must not be negative") }
    }

    private static func json(_ value: ParseValue, _ name: String) throws(ParseError) -> ParseValue {
        guard case .string(let text) = value else { return value }
        do {
            return try JSONParser.parse(text)
        } catch {
            throw .invalidJSON("\(name) is not valid JSON")
        }
    }

    /// A list given as `a,b`, as a JSON array string `["a","b"]`, or as a JSON array.
    private static func list(_ value: ParseValue, _ name: String) throws(ParseError) -> [String] {
        var value = value
        if case .string(let text) = value, text.hasPrefix("[") { value = try json(value, name) }
        switch value {
        case .string(let text): return text.split(separator: ",").map { String($0) }
        case .array(let elements):
            let names = elements.compactMap(\.stringValue)
            guard names.count == elements.count else { throw .invalidQuery("\(name) must list field names") }
            return names.flatMap { $0.split(separator: ",").map(String.init) }
        default: throw .invalidQuery("\(name) must list field names")
        }
    }

    private static func integer(_ value: ParseValue, _ name: String) throws(ParseError) -> Int {
        switch value {
        case .number: if let integer = value.intValue { return integer }
        case .string(let text): if let integer = Int(text) { return integer }
        default: break
        }
        throw .invalidQuery("\(name) must be an integer")
    }
}
