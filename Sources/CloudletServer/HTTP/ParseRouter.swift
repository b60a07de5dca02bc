import Cloudlet
import Hummingbird

/// One route of the Parse REST API: a path below the mount path, the methods it answers, how its
/// request is read (``Kind``), and the endpoint a matched request is for.
struct ParseRoute: Sendable {
    /// How a route's request is read, which decides the middleware it passes.
    enum Kind: Sendable, CaseIterable {
        /// Keys in the headers or the JSON body; the body is read whole (up to the largest body
        /// the server takes) and parsed before the route runs.
        case json
        /// Keys in the headers (or the JavaScript SDK's JSON body form); the body is not read by the
        /// middleware but streamed by the route (file uploads).
        case streamedBody
        /// No keys: the URL names the app (file downloads). No body is read.
        case urlOnly
    }

    let path: String
    let methods: [HTTPRequest.Method]
    let kind: Kind
    let endpoint: @Sendable (Parameters) throws -> ParseEndpoint

    init(
        _ path: String, _ methods: [HTTPRequest.Method], kind: Kind = .json,
        _ endpoint: @escaping @Sendable (Parameters) throws -> ParseEndpoint
    ) {
        self.path = path
        self.methods = methods
        self.kind = kind
        self.endpoint = endpoint
    }
}

extension ParseAPI {
    /// Every route of the Parse REST API. A new endpoint is one entry here and its case in
    /// ``perform(_:_:)`` (or, for another kind of route, in ``respond(to:context:route:)``).
    static let routes: [ParseRoute] = [
        ParseRoute("classes/:className", [.get, .post]) { .classes(try $0.require("className")) },
        ParseRoute("classes/:className/:objectId", [.get, .put, .delete, .post]) {
            .object(try $0.require("className"), try $0.require("objectId"))
        },
        ParseRoute("functions/:name", [.post]) { .function(try $0.require("name")) },
        ParseRoute("batch", [.post]) { _ in .batch },
        ParseRoute("users", [.get, .post]) { _ in .users },
        ParseRoute("users/me", [.get]) { _ in .currentUser },
        ParseRoute("users/:objectId", [.get, .put, .delete]) { .user(try $0.require("objectId")) },
        ParseRoute("login", [.get, .post]) { _ in .login },
        ParseRoute("logout", [.post]) { _ in .logout },
        ParseRoute("installations", [.get, .post]) { _ in .installations },
        ParseRoute("installations/:objectId", [.get, .put, .delete]) { .installation(try $0.require("objectId")) },
        ParseRoute("push", [.post]) { _ in .push },
        // The segment after `files/` is a file's name in the first two routes and the app id in the
        // third: the router takes one parameter name for both.
        ParseRoute("files/:id", [.post], kind: .streamedBody) { .file(try $0.require("id")) },
        ParseRoute("files/:id", [.delete]) { .file(try $0.require("id")) },
        ParseRoute("files/:id/:name", [.get], kind: .urlOnly) { .fileDownload(try $0.require("id"), try $0.require("name")) },
        ParseRoute("jobs/:name", [.post]) { .job(try $0.require("name")) },
    ]

    /// The methods a path that exists may be asked with and refuses with 405 when its route does
    /// not answer them.
    private static let refusedMethods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options]

    /// The routes of the Parse REST API below the mount path, plus `GET|POST <mount>/health`.
    /// Each request passes the middleware of its route's kind once, in this order: app, keys, the
    /// app's quota, body, session, the rate-limit rules. A route whose body streams skips the body
    /// step; a route that needs only its URL takes the app from its path and skips keys, body and
    /// session. Other methods on these paths answer 405, and paths that match nothing 404, both
    /// with a Parse `{code, error}` body.
    public func addRoutes(to router: Router<CloudletRequestContext>) {
        router.add(middleware: ParseErrorMiddleware())
        let mount = RouterPath(mountPath.isEmpty ? "/" : mountPath)
        let health = router.group(mount)
        health.get("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        health.post("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        Self.refuseOtherMethods(on: "health", answering: [.get, .post], in: health)
        let bodyReads = UnauthenticatedBodyReads()
        var groups: [ParseRoute.Kind: RouterGroup<CloudletRequestContext>] = [:]
        for kind in ParseRoute.Kind.allCases { groups[kind] = middleware(of: kind, in: router.group(mount), bodyReads: bodyReads) }
        var methodsByPath: [String: [HTTPRequest.Method]] = [:]
        for route in Self.routes {
            for method in route.methods {
                groups[route.kind]!.on(RouterPath(route.path), method: method) { request, context in
                    try await respond(to: request, context: context, route: route)
                }
            }
            methodsByPath[route.path, default: []] += route.methods
        }
        for (path, methods) in methodsByPath {
            Self.refuseOtherMethods(on: path, answering: methods, in: groups[.json]!)
        }
    }

    /// `group` with the middleware of routes of `kind`, reading bodies that carry their app or
    /// keys in the slots of `bodyReads`.
    private func middleware(
        of kind: ParseRoute.Kind, in group: RouterGroup<CloudletRequestContext>, bodyReads: UnauthenticatedBodyReads
    ) -> RouterGroup<CloudletRequestContext> {
        switch kind {
        case .json, .streamedBody:
            // Without an app id header the body is the JavaScript SDK's form (for an upload, the
            // JSON form, base64 and all), read here in one of the host's slots for such bodies.
            let bound = kind == .json ? maximumBodyBytes : Self.maximumBase64UploadBytes
            group.add(
                middleware: AppMiddleware(
                    apps: apps, trustedProxies: trustedProxies, source: .headerOrBody(bodyReads, maximumBodyBytes: bound)))
            group.add(middleware: KeyMiddleware(bodyReads: bodyReads, maximumBodyBytes: kind == .json ? maximumBodyBytes : nil))
        case .urlOnly:
            group.add(middleware: AppMiddleware(apps: apps, trustedProxies: trustedProxies, source: .path("id")))
            group.add(middleware: URLCallerMiddleware())
        }
        group.add(middleware: RateLimitMiddleware(stage: .quota, mountPath: mountPath))
        if kind == .json { group.add(middleware: BodyMiddleware(maximumBodyBytes: maximumBodyBytes)) }
        if kind != .urlOnly { group.add(middleware: SessionMiddleware()) }
        group.add(middleware: RateLimitMiddleware(stage: .rules, mountPath: mountPath))
        return group
    }

    private static func refuseOtherMethods(
        on path: String, answering methods: [HTTPRequest.Method], in group: RouterGroup<CloudletRequestContext>
    ) {
        for method in refusedMethods where !methods.contains(method) {
            group.on(RouterPath(path), method: method) { request, _ -> Response in
                throw ParseError(code: 119, message: "\(request.method.rawValue) is not allowed here", httpStatus: 405)
            }
        }
    }
}
