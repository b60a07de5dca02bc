import Cloudlet
import HTTPTypes
import Hummingbird

/// The routes of the Parse REST API by path, and the one matcher that finds a request's route: for
/// the router's registrations, for each operation of `POST /batch`, for the metrics label of a
/// request refused before the router runs, and for the path rate-limit rules see.
///
/// A path's segments match literally, or any one segment for `:name` (a path parameter); where
/// two paths match, the one with a literal segment first wins (`users/me` over `users/:objectId`),
/// as the router decides.
struct ParseRouteTable: Sendable {
    /// One path of the table and the routes at it, by method.
    struct Path: Sendable {
        /// The path below the mount path: `classes/:className`.
        let pattern: String
        /// The metrics label of requests to it: the full path with `{name}` parameters, as the
        /// router names its routes (`/parse/classes/{className}`).
        let label: String
        fileprivate let segments: [Substring]
        var routes: [HTTPRequest.Method: ParseRoute]

        /// The kinds of its routes, each once.
        var kinds: [ParseRoute.Kind] {
            ParseRoute.Kind.allCases.filter { kind in routes.values.contains { $0.kind == kind } }
        }

        /// The parameters of `parts` if they match this path.
        fileprivate func parameters(of parts: [Substring]) -> Parameters? {
            guard parts.count == segments.count else { return nil }
            var parameters = Parameters()
            for (segment, part) in zip(segments, parts) {
                if segment.first == ":" {
                    parameters[segment.dropFirst()] = part
                } else if segment != part {
                    return nil
                }
            }
            return parameters
        }

        /// Whether this path is more specific than `other` where both match: a literal segment
        /// where the other has a parameter, first.
        fileprivate func isMoreSpecific(than other: Path) -> Bool {
            for (mine, theirs) in zip(segments, other.segments) where (mine.first == ":") != (theirs.first == ":") {
                return theirs.first == ":"
            }
            return false
        }
    }

    /// The mount path (`/parse`, or empty at the root).
    let mountPath: String
    /// Every path, in the order of its first route in the table.
    let paths: [Path]

    /// The table of `routes` below `mountPath`.
    init(routes: [ParseRoute], mountPath: String) {
        self.mountPath = mountPath
        var paths: [Path] = []
        for route in routes {
            if let index = paths.firstIndex(where: { $0.pattern == route.path }) {
                precondition(paths[index].routes[route.method] == nil, "two routes for \(route.method) \(route.path)")
                paths[index].routes[route.method] = route
            } else {
                paths.append(
                    Path(
                        pattern: route.path, label: RouterPath(mountPath + "/" + route.path).description,
                        segments: route.path.split(separator: "/"), routes: [route.method: route]))
            }
        }
        self.paths = paths
    }

    /// The path `path` (below the mount path, without its query: `/classes/Posts`) matches, and
    /// its parameters.
    func match(_ path: some StringProtocol) -> (path: Path, parameters: Parameters)? {
        let parts = path.split(separator: "/").map { Substring($0) }
        var best: (path: Path, parameters: Parameters)?
        for candidate in paths {
            guard let parameters = candidate.parameters(of: parts) else { continue }
            if let current = best, !candidate.isMoreSpecific(than: current.path) { continue }
            best = (candidate, parameters)
        }
        return best
    }

    /// The path below the mount path of `requestPath` (with or without the mount path and a
    /// query, as a batch operation names it): `/parse/classes/Posts?limit=1` is `/classes/Posts`.
    func pathBelowMount(_ requestPath: String) -> Substring {
        var path = requestPath.prefix { $0 != "?" }
        if !mountPath.isEmpty, path.hasPrefix(mountPath + "/") { path = path.dropFirst(mountPath.count) }
        return path
    }

    /// The metrics label of a raw request path (with its mount path, with or without its query)
    /// whose app is named in a header, or nil: file downloads name their app in the path.
    func label(ofRequestPath requestPath: String) -> String? {
        let path = requestPath.prefix { $0 != "?" }
        guard path.hasPrefix(mountPath) else { return nil }
        let below = path.dropFirst(mountPath.count)
        guard below.first == "/", let found = match(below)?.path, found.kinds != [.urlOnly] else { return nil }
        return found.label
    }

    /// The 405 for a method a path does not answer.
    static func notAllowed(_ method: HTTPRequest.Method) -> ParseError {
        ParseError(code: 119, message: "\(method.rawValue) is not allowed here", httpStatus: 405)
    }
}
