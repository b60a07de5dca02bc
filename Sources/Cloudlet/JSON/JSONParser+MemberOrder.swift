extension JSONParser {
    /// One step of the way to a value inside a JSON text: a member of an object, or an element of
    /// an array.
    public enum PathStep: Sendable, Equatable {
        case member(String)
        case element(Int)
    }

    /// The names of the members of the object at `path` inside the JSON `bytes`, in the order the
    /// text gives them, each once (a repeated name at its first place, as JavaScript's `JSON.parse`
    /// keeps it), or nil when no object is there. A step to a repeated member follows its last
    /// value, the one ``parse(_:maximumDepth:)`` keeps. A ``ParseValue`` object keeps no order; this
    /// reads it again for the rare object whose order means something (an aggregate's `$sort`).
    /// Throws ``Failure`` when `bytes` is not one JSON value.
    ///
    /// ```swift
    /// try JSONParser.memberNames(in: Array(#"[{"$sort": {"b": 1, "a": -1}}]"#.utf8), at: [.element(0), .member("$sort")])  // ["b", "a"]
    /// ```
    public static func memberNames<Bytes: Collection<UInt8>>(
        in bytes: Bytes, at path: [PathStep], maximumDepth: Int = defaultMaximumDepth
    ) throws -> [String]? {
        func names(_ buffer: UnsafeRawBufferPointer) throws(Failure) -> [String]? {
            try reading(buffer, maximumDepth: maximumDepth) { parser throws(Failure) in try parser.memberNames(at: path[...], depth: 0) }
        }
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in try names(UnsafeRawBufferPointer(buffer)) }) {
            return result
        }
        return try Array(bytes).withUnsafeBytes { buffer in try names(buffer) }
    }

    /// Reads the value at `position` (nested `depth` deep), answering the member names of the
    /// object at `path` inside it.
    private mutating func memberNames(at path: ArraySlice<PathStep>, depth: Int) throws(Failure) -> [String]? {
        guard position < bytes.count else { throw failure("unexpected end of JSON") }
        switch (bytes[position], path.first) {
        case (UInt8(ascii: "{"), nil):
            var names: [String] = []
            var seen: Set<String> = []
            try readMembers(depth: depth + 1) { key, parser throws(Failure) in
                if seen.insert(key).inserted { names.append(key) }
                _ = try parser.readValue(depth: depth + 1)
            }
            return names
        case (UInt8(ascii: "{"), .member(let name)?):
            var found: [String]?
            try readMembers(depth: depth + 1) { key, parser throws(Failure) in
                if key == name {
                    found = try parser.memberNames(at: path.dropFirst(), depth: depth + 1)
                } else {
                    _ = try parser.readValue(depth: depth + 1)
                }
            }
            return found
        case (UInt8(ascii: "["), .element(let wanted)?):
            var found: [String]?
            try readElements(depth: depth + 1) { index, parser throws(Failure) in
                if index == wanted {
                    found = try parser.memberNames(at: path.dropFirst(), depth: depth + 1)
                } else {
                    _ = try parser.readValue(depth: depth + 1)
                }
            }
            return found
        default:
            _ = try readValue(depth: depth)
            return nil
        }
    }
}
