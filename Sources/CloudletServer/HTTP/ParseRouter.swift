import Cloudlet
import Hummingbird

extension ParseAPI {
    /// The routes of the Parse REST API, below the mount path, plus `GET|POST <mount>/health`.
    public func addRoutes(to router: Router<some RequestContext>) {
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
    }
}
