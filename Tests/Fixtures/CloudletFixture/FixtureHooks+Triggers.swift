import Cloudlet

/// Find and login triggers, for the worker-process tests:
///
/// - `beforeFind("Shelf")`: hides `hidden` objects, sorts by `-n`, keeps at most 3 and only the
///   field `n`; refuses (142) a query whose `where` has `refuse`.
/// - `afterFind("Shelf")`: drops objects with `n` 4 and marks the rest `seen: true`.
/// - `beforeFind("SlowShelf")` (500 ms limit): sleeps for a minute.
/// - `beforeLogin`: refuses a `banned` user (141) and an `unverified` one (142).
/// - `afterLogin`: records a `LoginLog` (`userId`, `actingUserId`).
/// - `afterLogout`: records a `LogoutLog` (`userId`, `installationId`).
extension FixtureHooks {
    static func registerTriggers(_ hooks: inout HookRegistry) {
        hooks.beforeFind("Shelf") { request in
            if request.query.constraints["refuse"] != nil { throw HookError.validation("no refusing") }
            request.query.constraints["hidden"] = ["$ne": true]
            request.query.order = ["-n"]
            request.query.limit = min(request.query.limit, 3)
            request.query.keys = ["n"]
        }
        hooks.afterFind("Shelf") { request in
            request.objects = request.objects.filter { $0["n"] != 4 }.map { var object = $0; object["seen"] = true; return object }
        }
        hooks.beforeFind("SlowShelf", timeLimit: .milliseconds(500)) { _ in try await Task.sleep(for: .seconds(60)) }
        hooks.beforeLogin { request in
            if request.user["banned"] == true { throw HookError.failed("this account is suspended") }
            if request.user["unverified"] == true { throw HookError.validation("verify your email first") }
        }
        hooks.afterLogin { request in
            let log = ParseObject(
                className: "LoginLog",
                fields: [
                    "userId": request.user.objectId.map(ParseValue.string) ?? .null,
                    "actingUserId": request.context.user.map { .string($0.id) } ?? .null,
                ])
            _ = try await request.store.asMaster.save(log)
        }
        hooks.afterLogout { request in
            let log = ParseObject(
                className: "LogoutLog",
                fields: ["userId": request.session["user"]?["objectId"] ?? .null, "installationId": request.session["installationId"] ?? .null])
            _ = try await request.store.asMaster.save(log)
        }
    }
}
