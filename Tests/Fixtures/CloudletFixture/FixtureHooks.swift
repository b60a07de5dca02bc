import Cloudlet
import Foundation

/// Hooks for the integration tests, served by `cloudlet-fixture serve`.
///
/// - `afterSave("Crash")`: the first time it runs for an object with `hang: true` (it leaves a mark
///   in the worker's own folder), logs "after hook hanging: <event id>" once the save is committed,
///   then hangs for a minute so that the test can kill the process mid-hook. Otherwise records the
///   save as a `CrashLog` object (`savedId`, `eventId`, `userId`).
/// - `beforeSave("Alerted")`: records a push to the `ops` channel, then refuses an object with
///   `refuse: true` (142), so that its push must vanish with it.
/// - `beforeSave("Echoed")`: sets `seen` to what its object holds as the hook is given it: the
///   names of its fields, sorted, then `ACL` if it has one and `createdAt` if it has that.
/// - `afterSave("Later")`, run after the response: waits 3 s (or the object's `waitMs`), then
///   records the save as a `LaterMark` object (`savedId`), so that a test sees the client answered
///   before it ran. The
///   first time it runs for an object with `hang: true` (it leaves a mark in the worker's own
///   folder), it logs "after-response hook hanging: <object id>" and hangs instead, so that the
///   test can stop the server mid-hook. For an object with `gated: true` it waits instead for a
///   `LaterGate` object to exist (polling every 50 ms, for at most 25 s) before it records, so that
///   a test decides when the hook may finish.
/// - `function("slow")`: sleeps `ms` milliseconds, then answers "done".
/// - `function("config")`: answers the app's config parameters as its caller reads them
///   (`caller`) and as the master key does (`master`).
/// - `function("wait")`: waits for ever, deaf to cancellation but using no CPU, under a 60 s limit.
/// - `function("spin")`: `while true {}` that ignores cancellation, under a 1 s limit; only a kill ends it.
/// - `function("spinBriefly")`: the same under a 100 ms limit.
/// - `function("spinIfAsked")`: answers "quick" at once, or with `spin: true` spins as `spin` does,
///   under a 1 s limit: quick runs put it on its worker's event loop, where a spin holds up the loop.
/// - `function("crash")`: traps on a force-unwrap of nil.
/// - `function("hog")`: allocates (and touches) memory without bound.
/// - `function("pid")`: answers the process id of the process running the hook.
/// - `function("log")`: logs `text` through `request.logger` (with metadata `source: fixture`) and
///   writes it to standard error.
/// - `job("spinJob")`: `while true {}` that ignores cancellation, under a 1 s limit; only a kill ends it.
/// - `job("report")`: reports `step <n> of <steps>` as its progress for each of `steps` (default 1)
///   steps, under a 30 s limit (within the app's default cap of 60 s).
/// - `job("hangOnce")`: the first time it runs for a run id (it leaves a mark in the worker's own
///   folder), logs "job hanging: <run id>" and hangs for a minute so that the test can kill the
///   process mid-run; otherwise records a `JobLog` object (`runId`) and ends.
/// - Find and login triggers: see `registerTriggers`.
/// - LiveQuery hooks: see `registerLiveQuery`.
enum FixtureHooks: HookModule {
    static func register(_ hooks: inout HookRegistry) {
        hooks.afterSave("Crash", timeLimit: .seconds(60)) { request in
            let mark = "hung-\(request.object.objectId ?? "")"
            if request.object["hang"] == true, !FileManager.default.fileExists(atPath: mark) {
                _ = FileManager.default.createFile(atPath: mark, contents: Data())
                request.logger.notice("after hook hanging: \(request.eventId ?? "")")
                try await Task.sleep(for: .seconds(60))
                return
            }
            let log = ParseObject(
                className: "CrashLog",
                fields: [
                    "savedId": request.object.objectId.map(ParseValue.string) ?? .null,
                    "eventId": request.eventId.map(ParseValue.string) ?? .null,
                    "userId": request.user.map { .string($0.id) } ?? .null,
                ])
            _ = try await request.store.asMaster.save(log)
        }
        hooks.afterSave("Later", timeLimit: .seconds(30), runs: .afterResponse) { request in
            let mark = "later-\(request.object.objectId ?? "")"
            if request.object["hang"] == true, !FileManager.default.fileExists(atPath: mark) {
                _ = FileManager.default.createFile(atPath: mark, contents: Data())
                request.logger.notice("after-response hook hanging: \(request.object.objectId ?? "")")
                try await Task.sleep(for: .seconds(60))
                return
            }
            if request.object["gated"] == true {
                let end = ContinuousClock.now + .seconds(25)
                while try await request.store.asMaster.count(ParseQuery("LaterGate")) == 0, ContinuousClock.now < end {
                    try await Task.sleep(for: .milliseconds(50))
                }
            } else {
                try await Task.sleep(for: request.object["waitMs"]?.intValue.map { .milliseconds($0) } ?? .seconds(3))
            }
            let record = ParseObject(className: "LaterMark", fields: ["savedId": request.object.objectId.map(ParseValue.string) ?? .null])
            _ = try await request.store.asMaster.save(record)
        }
        hooks.beforeSave("Alerted") { request in
            try await request.push(PushNotification(toChannels: ["ops"], alert: "alerted"))
            if request.object["refuse"] == true { throw HookError.validation("refused") }
        }
        hooks.beforeSave("Echoed") { request in
            let object = request.object
            let seen = object.fields.keys.sorted() + (object.acl == nil ? [] : ["ACL"]) + (object.createdAt == nil ? [] : ["createdAt"])
            request.object["seen"] = .array(seen.map(ParseValue.string))
        }
        hooks.function("slow") { request in
            let milliseconds = request.params["ms"]?.intValue ?? 0
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "done"
        }
        hooks.function("config") { request in
            ["caller": .object(try await request.config()), "master": .object(try await request.store.asMaster.config())]
        }
        registerMisbehaving(&hooks)
        registerHostile(&hooks)
        registerFiles(&hooks)
        registerTriggers(&hooks)
        registerLiveQuery(&hooks)
    }

    /// Hooks that hang, trap or exhaust memory, for the isolation tests.
    private static func registerMisbehaving(_ hooks: inout HookRegistry) {
        let alwaysTrue: @Sendable () -> Bool = { ProcessInfo.processInfo.processIdentifier > 0 }
        hooks.function("spin", timeLimit: .seconds(1)) { _ in
            var turns = 0
            while alwaysTrue() { turns &+= 1 }
            return .number(Double(turns))
        }
        hooks.function("spinBriefly", timeLimit: .milliseconds(100)) { _ in
            var turns = 0
            while alwaysTrue() { turns &+= 1 }
            return .number(Double(turns))
        }
        hooks.function("spinIfAsked", timeLimit: .seconds(1)) { request in
            guard request.params["spin"] == true else { return "quick" }
            var turns = 0
            while alwaysTrue() { turns &+= 1 }
            return .number(Double(turns))
        }
        hooks.function("wait", timeLimit: .seconds(60)) { _ in
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            return nil
        }
        hooks.function("crash") { request in
            .string(request.params["missing"]!.stringValue!)
        }
        hooks.function("hog", timeLimit: .seconds(60)) { _ in
            var blocks: [[UInt8]] = []
            while alwaysTrue() { blocks.append([UInt8](repeating: 1, count: 8 << 20)) }
            return .number(Double(blocks.count))
        }
        hooks.job("spinJob", timeLimit: .seconds(1)) { _ in
            var turns = 0
            while alwaysTrue() { turns &+= 1 }
        }
        hooks.job("report", timeLimit: .seconds(30)) { request in
            let steps = request.params["steps"]?.intValue ?? 1
            for step in 1...max(1, steps) { try await request.progress("step \(step) of \(steps)") }
        }
        hooks.job("hangOnce", timeLimit: .seconds(60)) { request in
            let mark = "job-hung-\(request.jobId)"
            if !FileManager.default.fileExists(atPath: mark) {
                _ = FileManager.default.createFile(atPath: mark, contents: Data())
                request.logger.notice("job hanging: \(request.jobId)")
                try await Task.sleep(for: .seconds(60))
                return
            }
            _ = try await request.store.save(ParseObject(className: "JobLog", fields: ["runId": .string(request.jobId)]))
        }
        hooks.function("pid") { _ in
            .number(Double(ProcessInfo.processInfo.processIdentifier))
        }
        hooks.function("log") { request in
            let text = request.params["text"]?.stringValue ?? ""
            request.logger.notice("\(text)", metadata: ["source": "fixture"])
            FileHandle.standardError.write(Data("stderr: \(text)\n".utf8))
            return "logged"
        }
    }
}
