import Cloudlet
import Hummingbird

/// One route of the Parse REST API: a path below the mount path, the methods it answers, and the
/// endpoint a matched request is for.
struct ParseRoute: Sendable {
    let path: String
    let methods: [HTTPRequest.Method]
    let endpoint: @Sendable (Parameters) throws -> ParseEndpoint

    init(_ path: String, _ methods: [HTTPRequest.Method], _ endpoint: @escaping @Sendable (Parameters) throws -> ParseEndpoint) {
        self.path = path
        self.methods = methods
        self.endpoint = endpoint
    }
}

extension ParseAPI {
    /// Every route of the Parse REST API. A new endpoint is one entry here and its case in
    /// ``perform(_:_:)``.
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
        ParseRoute("jobs/:name", [.post]) { .job(try $0.require("name")) },
    ]

    /// The methods a path that exists may be asked with and refuses with 405 when its route does
    /// not answer them.
    private static let refusedMethods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options]

    /// The routes of the Parse REST API below the mount path, plus `GET|POST <mount>/health`.
    /// Each request passes the middleware once: app, keys, the app's quota, body, session, the
    /// rate-limit rules. Other methods on these paths answer 405, and paths that match nothing
    /// 404, both with a Parse `{code, error}` body.
    public func addRoutes(to router: Router<CloudletRequestContext>) {
        router.add(middleware: ParseErrorMiddleware())
        let group = router.group(RouterPath(mountPath.isEmpty ? "/" : mountPath))
        group.get("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        group.post("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        Self.refuseOtherMethods(on: "health", answering: [.get, .post], in: group)
        // Every other route passes these once, in this order.
        group.add(middleware: AppMiddleware(apps: apps, trustedProxies: trustedProxies, maximumBodyBytes: maximumBodyBytes))
        group.add(middleware: KeyMiddleware(maximumBodyBytes: maximumBodyBytes))
        group.add(middleware: RateLimitMiddleware(stage: .quota, mountPath: mountPath))
        group.add(middleware: BodyMiddleware(maximumBodyBytes: maximumBodyBytes))
        group.add(middleware: SessionMiddleware())
        group.add(middleware: RateLimitMiddleware(stage: .rules, mountPath: mountPath))
        for route in Self.routes {
            for method in route.methods {
                group.on(RouterPath(route.path), method: method) { request, context in
                    try await respond(to: request, context: context, endpoint: try route.endpoint(context.parameters))
                }
            }
            Self.refuseOtherMethods(on: route.path, answering: route.methods, in: group)
        }
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
