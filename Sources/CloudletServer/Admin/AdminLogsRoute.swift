import Cloudlet
import CloudletRuntime
import Foundation
import Hummingbird

/// `GET /admin/apps/:id/logs?hook=kind:name&since=10m&limit=100`, behind the operator key: the app's
/// newest hook runs (at most `limit`, default 100, up to 1,000), oldest first, as
/// `{"results": [{"sequence", "hook", "requestId", "startedAt", "durationMs", "outcome", "error", "lines"}]}`.
/// `since` is a duration back (`90s`, `10m`, `2h`, `7d`) or a date in Parse's format.
struct AdminLogsRoute {
    let apps: AppDirectory
    let clock: any CloudletClock

    /// Adds the route to `admin`, the `/admin` group behind the operator key.
    func add(to admin: RouterGroup<CloudletRequestContext>) {
        admin.get("apps/:id/logs") { request, context in
            let id = try context.parameters.require("id")
            guard let log = apps.app(id)?.runtime.context.hookRuns else { throw ParseError.objectNotFound("no app \(id)") }
            let runs = try await log.runs(try query(request.uri.queryParameters))
            return JSONResponse.make(status: .ok, body: ["results": .array(runs.map(\.json))])
        }
    }

    private func query(_ parameters: Parameters) throws -> HookRunQuery {
        var query = HookRunQuery()
        query.hook = parameters["hook"].map(String.init)
        if let since = parameters["since"] {
            guard let time = HookRunQuery.time(String(since), before: clock.now) else {
                throw ParseError.invalidQuery("since must be a duration such as 10m or a date such as 2025-01-31T12:00:00.000Z")
            }
            query.since = time
        }
        if let limit = parameters["limit"] {
            guard let count = Int(limit), (1...1000).contains(count) else { throw ParseError.invalidQuery("limit must be 1 to 1000") }
            query.limit = count
        }
        return query
    }
}
