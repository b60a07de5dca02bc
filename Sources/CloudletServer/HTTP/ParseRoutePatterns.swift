import Hummingbird

/// The routes of the Parse REST API whose app is named in the request's header, as patterns to
/// match a raw request path against before the router runs: `/parse/classes/Posts?limit=1`
/// matches `/parse/classes/{className}`, the pattern metrics label the route with.
struct ParseRoutePatterns: Sendable {
    private let mountPath: String
    private let patterns: [(path: PathPattern, label: String)]

    /// The patterns of `routes` (those not of kind ``ParseRoute/Kind/urlOnly``) below `mountPath`
    /// (normalized: `/parse`, or empty at the root).
    init(routes: [ParseRoute], mountPath: String) {
        self.mountPath = mountPath
        var seen = Set<String>()
        patterns = routes.filter { $0.kind != .urlOnly && seen.insert($0.path).inserted }.compactMap { route in
            PathPattern(route.path).map { ($0, RouterPath(mountPath + "/" + route.path).description) }
        }
    }

    /// The pattern `path` (with or without its query) matches, or nil.
    func pattern(of path: String) -> String? {
        let path = path.prefix { $0 != "?" }
        guard path.hasPrefix(mountPath) else { return nil }
        let below = path.dropFirst(mountPath.count)
        guard below.first == "/" else { return nil }
        return patterns.first { $0.path.matches(below) }?.label
    }
}
