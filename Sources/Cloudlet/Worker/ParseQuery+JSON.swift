/// A query as JSON, as store calls carry it between a worker and its host.
extension ParseQuery {
    /// `{"className", "where", "order", "limit", "skip", "keys"?, "include", "excludeKeys"?}`.
    package var json: ParseValue {
        var members: [String: ParseValue] = [
            "className": .string(className), "where": .object(constraints), "order": .array(order.map(ParseValue.string)),
            "limit": .number(Double(limit)), "skip": .number(Double(skip)), "include": .array(include.map(ParseValue.string)),
        ]
        if let keys { members["keys"] = .array(keys.map(ParseValue.string)) }
        if let excludeKeys { members["excludeKeys"] = .array(excludeKeys.map(ParseValue.string)) }
        return .object(members)
    }

    /// Reads a query written by ``json``.
    package init(json: ParseValue) throws {
        guard let className = json["className"]?.stringValue else { throw ParseError.invalidQuery("a query needs a className") }
        func strings(_ key: String) -> [String]? { json[key]?.arrayValue?.compactMap(\.stringValue) }
        self.init(
            className, constraints: json["where"]?.objectValue ?? [:], order: strings("order") ?? [],
            limit: json["limit"]?.intValue ?? Self.defaultLimit, skip: json["skip"]?.intValue ?? 0, keys: strings("keys"),
            include: strings("include") ?? [], excludeKeys: strings("excludeKeys"))
    }
}
