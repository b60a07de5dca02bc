extension JSONParser {
    /// One step of the way to a value inside a JSON text: a member of an object, or an element of
    /// an array.
    public enum PathStep: Sendable, Hashable {
        case member(String)
        case element(Int)
    }

    /// The names of the members of the object at each of `paths` inside the JSON `bytes`, in the
    /// order the text gives them, each once (a repeated name at its first place, as JavaScript's
    /// `JSON.parse` keeps it), or nil where no object is there; read in one pass, whatever the
    /// number of paths. A step to a repeated member follows its last value, the one
    /// ``parse(_:maximumDepth:)`` keeps. A ``ParseValue`` object keeps no order; this reads it
    /// again for the rare object whose order means something (an aggregate's `$sort`). Throws
    /// ``Failure`` when `bytes` is not one JSON value.
    ///
    /// ```swift
    /// try JSONParser.memberNames(in: Array(#"[{"$sort": {"b": 1, "a": -1}}]"#.utf8), at: [[.element(0), .member("$sort")]])  // [["b", "a"]]
    /// ```
    public static func memberNames<Bytes: Collection<UInt8>>(
        in bytes: Bytes, at paths: [[PathStep]], maximumDepth: Int = defaultMaximumDepth
    ) throws -> [[String]?] {
        let wanted = paths.enumerated().map { (index: $0.offset, rest: $0.element[...]) }
        func names(_ buffer: UnsafeRawBufferPointer) throws(Failure) -> [[String]?] {
            var found = [[String]?](repeating: nil, count: paths.count)
            try reading(buffer, maximumDepth: maximumDepth) { parser throws(Failure) in try parser.memberNames(wanted, depth: 0, into: &found) }
            return found
        }
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in try names(UnsafeRawBufferPointer(buffer)) }) {
            return result
        }
        return try Array(bytes).withUnsafeBytes { buffer in try names(buffer) }
    }

    /// Reads the value at `position` (nested `depth` deep), setting `found` at the index of each of
    /// `wanted` to the member names of the object at the rest of its path inside the value.
    private mutating func memberNames(
        _ wanted: [(index: Int, rest: ArraySlice<PathStep>)], depth: Int, into found: inout [[String]?]
    ) throws(Failure) {
        guard position < bytes.count else { throw failure("unexpected end of JSON") }
        // A later value of a repeated member replaces what an earlier one gave.
        for path in wanted { found[path.index] = nil }
        let here = wanted.filter { $0.rest.isEmpty }.map(\.index)
        let deeper = wanted.filter { !$0.rest.isEmpty }
        func within(_ step: PathStep) -> [(index: Int, rest: ArraySlice<PathStep>)] {
            deeper.filter { $0.rest.first == step }.map { (index: $0.index, rest: $0.rest.dropFirst()) }
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            var names: [String] = []
            var seen: Set<String> = []
            try readMembers(depth: depth + 1) { key, parser throws(Failure) in
                if !here.isEmpty, seen.insert(key).inserted { names.append(key) }
                let inner = deeper.isEmpty ? [] : within(.member(key))
                if inner.isEmpty { _ = try parser.readValue(depth: depth + 1) } else { try parser.memberNames(inner, depth: depth + 1, into: &found) }
            }
            for index in here { found[index] = names }
        case UInt8(ascii: "[") where !deeper.isEmpty:
            try readElements(depth: depth + 1) { element, parser throws(Failure) in
                let inner = within(.element(element))
                if inner.isEmpty { _ = try parser.readValue(depth: depth + 1) } else { try parser.memberNames(inner, depth: depth + 1, into: &found) }
            }
        default:
            _ = try readValue(depth: depth)
        }
    }
}
