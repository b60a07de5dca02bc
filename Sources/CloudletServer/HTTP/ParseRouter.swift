import Cloudlet
import Hummingbird

extension ParseAPI {
    /// The routes of the Parse REST API, below the mount path, plus `GET|POST <mount>/health`.
    public func addRoutes(to router: Router<CloudletRequestContext>) {
        let group = router.group(RouterPath(mountPath.isEmpty ? "/" : mountPath))
        let health: @Sendable (Request, any RequestContext) async throws -> Response = { _, _ in
            JSONResponse.make(status: .ok, body: ["status": "ok"])
        }
        group.get("health") { request, context in try await health(request, context) }
        group.post("health") { request, context in try await health(request, context) }
        group.on("classes/:className", method: .get) { request, context in
            try await respond(to: request, context: context, endpoint: .classes(try context.parameters.require("className")))
        }
        group.on("classes/:className", method: .post) { request, context in
            try await respond(to: request, context: context, endpoint: .classes(try context.parameters.require("className")))
        }
        for method in [HTTPRequest.Method.get, .put, .delete, .post] {
            group.on("classes/:className/:objectId", method: method) { request, context in
                let endpoint = ParseEndpoint.object(
                    try context.parameters.require("className"), try context.parameters.require("objectId"))
                return try await respond(to: request, context: context, endpoint: endpoint)
            }
        }
        group.post("functions/:name") { request, context in
            try await respond(to: request, context: context, endpoint: .function(try context.parameters.require("name")))
        }
        group.post("batch") { request, context in
            try await respond(to: request, context: context, endpoint: .batch)
        }
        let fixed: [(String, [HTTPRequest.Method], ParseEndpoint)] = [
            ("users", [.get, .post], .users), ("users/me", [.get], .currentUser), ("login", [.get, .post], .login),
            ("logout", [.post], .logout),
        ]
        for (path, methods, endpoint) in fixed {
            for method in methods {
                group.on(RouterPath(path), method: method) { request, context in
                    try await respond(to: request, context: context, endpoint: endpoint)
                }
            }
        }
        for method in [HTTPRequest.Method.get, .put, .delete] {
            group.on("users/:objectId", method: method) { request, context in
                try await respond(to: request, context: context, endpoint: .user(try context.parameters.require("objectId")))
            }
        }
    }
}
