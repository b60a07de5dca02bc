/// A path pattern in the shape Parse Server's `rateLimit.requestPath` takes, matched segment by
/// segment in linear time: a literal segment matches itself, `:name` any one segment, and `*`
/// (last) any rest of the path, even none. Paths are below the mount path: `/functions/*`,
/// `/classes/:className`, `/login`.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    private enum Segment: Hashable {
        case literal(Substring)
        case any
        case rest
    }

    private let segments: [Segment]
    public let description: String

    /// The pattern `text`; nil if `*` is not its last segment or it is longer than 512 bytes.
    public init?(_ text: String) {
        guard text.utf8.count <= 512 else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: true)
        var segments: [Segment] = []
        for (index, part) in parts.enumerated() {
            if part == "*" {
                guard index == parts.count - 1 else { return nil }
                segments.append(.rest)
            } else if part.hasPrefix(":") {
                segments.append(.any)
            } else {
                segments.append(.literal(part))
            }
        }
        self.segments = segments
        self.description = text
    }

    /// Whether `path` (below the mount path, such as `/functions/hello`) matches.
    public func matches(_ path: some StringProtocol) -> Bool {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).makeIterator()
        for segment in segments {
            switch segment {
            case .rest: return true
            case .any: guard parts.next() != nil else { return false }
            case .literal(let literal): guard let part = parts.next(), part == literal else { return false }
            }
        }
        return parts.next() == nil
    }
}
