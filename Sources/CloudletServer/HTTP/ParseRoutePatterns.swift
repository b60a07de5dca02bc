/// The routes of the Parse REST API whose app is named in the request's header, as patterns to
/// match a raw request path against before the router runs: `/parse/classes/Posts?limit=1`
/// matches `/parse/classes/{className}`, the pattern metrics label the route with.
struct ParseRoutePatterns: Sendable {
    private struct Pattern: Sendable {
        /// Each segment's literal text, or nil where the route takes a parameter.
        let segments: [Substring?]
        /// The pattern as the router labels it.
        let label: String
    }

    private let mountSegments: [Substring]
    private let patterns: [Pattern]

    /// The patterns of `routes` (those not of kind ``ParseRoute/Kind/urlOnly``) below `mountPath`.
    init(routes: [ParseRoute], mountPath: String) {
        let mountSegments = mountPath.split(separator: "/")
        self.mountSegments = mountSegments
        var seen = Set<String>()
        patterns = routes.filter { $0.kind != .urlOnly && seen.insert($0.path).inserted }.map { route in
            let segments = route.path.split(separator: "/").map { $0.hasPrefix(":") ? nil : $0 }
            let label = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            return Pattern(segments: segments, label: ([""] + mountSegments.map(String.init) + label).joined(separator: "/"))
        }
    }

    /// The pattern `path` (with or without its query) matches, or nil.
    func pattern(of path: String) -> String? {
        let segments = path.prefix { $0 != "?" }.split(separator: "/")
        guard segments.count > mountSegments.count, segments.starts(with: mountSegments) else { return nil }
        let below = segments.dropFirst(mountSegments.count)
        return patterns.first { pattern in
            pattern.segments.count == below.count && zip(pattern.segments, below).allSatisfy { $0 == nil || $0 == $1 }
        }?.label
    }
}
