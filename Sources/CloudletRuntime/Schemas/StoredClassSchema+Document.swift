import Cloudlet

extension StoredClassSchema {
    /// `indexes` as a store keeps them: each name → its keys as `[field, 1 or -1]` pairs, in order.
    public static func indexesDocument(_ indexes: [String: [IndexKey]]) -> ParseValue {
        .object(indexes.mapValues { keys in .array(keys.map { [.string($0.field), .number($0.ascending ? 1 : -1)] }) })
    }

    /// The indexes an ``indexesDocument(_:)`` holds (a malformed key left out).
    public static func indexes(fromDocument document: ParseValue) -> [String: [IndexKey]] {
        (document.objectValue ?? [:]).mapValues { keys in
            (keys.arrayValue ?? []).compactMap { key in
                guard let pair = key.arrayValue, pair.count == 2, let field = pair[0].stringValue else { return nil }
                return IndexKey(field: field, ascending: pair[1] != -1)
            }
        }
    }
}
