import Cloudlet
import Foundation

/// LiveQuery hooks, for the worker-process tests (the app must publish `Broadcast`):
///
/// - `beforeConnect`: refuses (141) a client past 5 connections of the app.
/// - `beforeSubscribe("Broadcast")`: refuses (142) a query on `secret`, and limits every
///   subscription to the fields `text` and `stamp`.
/// - `afterLiveQueryEvent("Broadcast")`: drops the events of objects marked `muted`, and stamps the
///   others with the process id of the worker that ran it (`stamp`).
extension FixtureHooks {
    static func registerLiveQuery(_ hooks: inout HookRegistry) {
        hooks.beforeConnect { request in
            if request.clients >= 5 { throw HookError.failed("too many clients") }
        }
        hooks.beforeSubscribe("Broadcast") { request in
            if request.query.constraints["secret"] != nil { throw HookError.validation("no subscribing to secrets") }
            request.query.keys = ["text", "stamp"]
        }
        hooks.afterLiveQueryEvent("Broadcast") { request in
            if request.object["muted"] == true {
                request.sendEvent = false
                return
            }
            request.object["stamp"] = .number(Double(ProcessInfo.processInfo.processIdentifier))
        }
    }
}
