import Cloudlet
import Hummingbird

extension ParseAPI {
    /// The methods a path that exists may be asked with and refuses with 405 when its routes do
    /// not answer them.
    private static let refusedMethods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options]

    /// The routes of the Parse REST API below the mount path, plus `GET|POST <mount>/health`.
    /// Each request passes the middleware of its route's kind once, in this order: app, keys, the
    /// app's quota, body, session, the rate-limit rules. A route whose body streams skips the body
    /// step; a route that needs only its URL takes the app from its path and skips keys, body and
    /// session. A path whose routes all read JSON also takes `POST` with the method it means in the
    /// body's `_method`, as the JavaScript SDK sends every call. Other methods on these paths answer
    /// 405, and paths that match nothing 404, both with a Parse `{code, error}` body.
    public func addRoutes(to router: Router<CloudletRequestContext>) {
        router.add(middleware: ParseErrorMiddleware())
        let mount = RouterPath(mountPath.isEmpty ? "/" : mountPath)
        let health = router.group(mount)
        health.get("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        health.post("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        Self.refuseOtherMethods(on: "health", answering: [.get, .post], in: health)
        let bodyReads = UnauthenticatedBodyReads()
        var groups: [ParseRoute.Kind: RouterGroup<ParseRequestContext>] = [:]
        for kind in ParseRoute.Kind.allCases { groups[kind] = middleware(of: kind, in: router.group(mount), bodyReads: bodyReads) }
        for path in table.paths {
            var methods = Array(path.routes.keys)
            if path.kinds == [.json], !methods.contains(.post) { methods.append(.post) }
            for method in methods {
                groups[path.routes[method]?.kind ?? .json]!.on(RouterPath(path.pattern), method: method) { request, context in
                    try await respond(to: request, context: context, at: path)
                }
            }
            Self.refuseOtherMethods(on: RouterPath(path.pattern), answering: methods, in: groups[.json]!)
        }
    }

    /// `group` with the middleware of routes of `kind`, reading bodies that carry their app or
    /// keys in the slots of `bodyReads`; after the app and the caller are known, its routes see a
    /// ``ParseRequestContext``.
    private func middleware(
        of kind: ParseRoute.Kind, in group: RouterGroup<CloudletRequestContext>, bodyReads: UnauthenticatedBodyReads
    ) -> RouterGroup<ParseRequestContext> {
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
        let authenticated = group.group(context: ParseRequestContext.self)
        authenticated.add(middleware: RateLimitMiddleware(stage: .quota, mountPath: mountPath))
        if kind == .json { authenticated.add(middleware: BodyMiddleware(maximumBodyBytes: maximumBodyBytes)) }
        if kind != .urlOnly { authenticated.add(middleware: SessionMiddleware()) }
        authenticated.add(middleware: RateLimitMiddleware(stage: .rules, mountPath: mountPath))
        return authenticated
    }

    private static func refuseOtherMethods<Context: RequestContext>(
        on path: RouterPath, answering methods: [HTTPRequest.Method], in group: RouterGroup<Context>
    ) {
        for method in refusedMethods where !methods.contains(method) {
            group.on(path, method: method) { request, _ -> Response in throw ParseRouteTable.notAllowed(request.method) }
        }
    }
}
