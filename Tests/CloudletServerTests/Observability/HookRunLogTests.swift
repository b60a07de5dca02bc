import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import Logging
import Testing

/// Each app's hook runs: kept in its own database with a retention cap, read through the admin API.
@Suite struct HookRunLogTests {
    /// Runs `body` with a log over a new, empty app of `store`.
    func withLog(
        _ store: TestStore, retention: Int, bufferCapacity: Int = 100, _ body: (HookRunLog, CloudletMetrics) async throws -> Void
    ) async throws {
        try await store.with(TestApp.hookRuns) { storage, _ in
            let metrics = CloudletMetrics()
            try await body(HookRunLog(appId: "a", storage: storage, retention: retention, bufferCapacity: bufferCapacity, metrics: metrics), metrics)
        }
    }

    static func run(_ index: Int, hook: String = "function:ok", at time: Date = Date()) -> HookRun {
        HookRun(hook: hook, requestId: "r\(index)", startedAt: time, duration: .milliseconds(index), outcome: .ok)
    }

    @Test(arguments: TestStore.allCases) func storageKeepsOnlyTheNewestRunsUpToTheRetentionCap(_ store: TestStore) async throws {
        try await withLog(store, retention: 5) { log, _ in
            for index in 0..<8 { log.record(Self.run(index)) }
            try await log.flush()
            for index in 8..<12 { log.record(Self.run(index)) }
            let runs = try await log.runs(HookRunQuery(limit: 100))
            #expect(runs.map(\.requestId) == ["r7", "r8", "r9", "r10", "r11"])
            #expect(runs.map(\.sequence) == runs.map(\.sequence).sorted())
            #expect(runs.last?.duration == .milliseconds(11))
        }
    }

    @Test(arguments: TestStore.allCases) func queriesSelectByHookTimeAndSequence(_ store: TestStore) async throws {
        try await withLog(store, retention: 100) { log, _ in
            let now = Date()
            log.record(Self.run(0, hook: "function:ok", at: now.addingTimeInterval(-3600)))
            log.record(Self.run(1, hook: "beforeSave:Posts", at: now.addingTimeInterval(-60)))
            log.record(Self.run(2, hook: "function:ok", at: now))
            #expect(try await log.runs(HookRunQuery(hook: "function:ok")).map(\.requestId) == ["r0", "r2"])
            let since = try #require(HookRunQuery.time("10m", before: now))
            #expect(try await log.runs(HookRunQuery(since: since)).map(\.requestId) == ["r1", "r2"])
            let first = try #require(try await log.runs(HookRunQuery(limit: 1)).first)
            #expect(first.requestId == "r2")
            #expect(try await log.runs(HookRunQuery(after: first.sequence - 1)).map(\.requestId) == ["r2"])
        }
    }

    @Test(arguments: TestStore.allCases) func aFullBufferDropsRunsAndCountsThemInsteadOfWaiting(_ store: TestStore) async throws {
        try await withLog(store, retention: 100, bufferCapacity: 3) { log, metrics in
            for index in 0..<5 { log.record(Self.run(index)) }
            let kept = try await log.runs(HookRunQuery())
            #expect(kept.count == 3)
            #expect(String(decoding: metrics.exposition(), as: UTF8.self).contains(#"cloudlet_hook_runs_dropped_total{app="a"} 2"#))
        }
    }

    @Test func sinceTakesDurationsAndDates() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(HookRunQuery.time("90s", before: now) == now.addingTimeInterval(-90))
        #expect(HookRunQuery.time("10m", before: now) == now.addingTimeInterval(-600))
        #expect(HookRunQuery.time("2h", before: now) == now.addingTimeInterval(-7200))
        #expect(HookRunQuery.time("2025-01-31T12:00:00.000Z", before: now) == ParseDate.date(from: "2025-01-31T12:00:00.000Z"))
        #expect(HookRunQuery.time("soon", before: now) == nil)
        #expect(HookRunQuery.time("-5m", before: now) == nil)
    }

    @Test func aRunKeepsItsHookLinesUpToTheCapAndTheAdminAPIShowsThemToTheOperatorOnly() async throws {
        try await ObservedServer.with { server in
            #expect(try await server.a.post("/functions/chatty", ["lines": 60]).status == 200)
            #expect(try await server.a.post("/classes/Noted", ["n": 1]).status == 201)
            #expect(try await server.a.post("/functions/fail").status == 400)
            let masterKey = HTTPField.Name("X-Parse-Master-Key")!
            let appId = HTTPField.Name("X-Parse-Application-Id")!
            for (app, key) in [("a", "a-master"), ("b", "b-master")] {
                #expect(try await server.get("/admin/apps/a/logs", headers: [appId: app, masterKey: key]).status == 401)
                #expect(try await server.get("/admin/apps/a/logs", headers: [.authorization: "Bearer \(key)"]).status == 401)
            }
            let all = try JSONParser.parse(try await server.operatorGet("/admin/apps/a/logs").text)["results"]?.arrayValue ?? []
            #expect(all.compactMap { $0["hook"]?.stringValue } == ["function:chatty", "beforeSave:Noted", "function:fail"])
            let chatty = try #require(all.first)
            #expect(chatty["outcome"] == "ok")
            #expect(chatty["lines"]?.arrayValue?.count == 50)
            #expect(chatty["lines"]?.arrayValue?.first?["message"] == "line 0")
            #expect(chatty["lines"]?.arrayValue?.first?["metadata"]?["index"] == "0")
            #expect(chatty["droppedLines"] == 10)
            #expect(all[1]["lines"]?.arrayValue?.first?["message"] == "saving")
            #expect(all[2]["outcome"] == "error" && all[2]["error"] == "no")

            let failures = try JSONParser.parse(try await server.operatorGet("/admin/apps/a/logs?hook=function:fail&since=10m&limit=5").text)
            #expect(failures["results"]?.arrayValue?.count == 1)
            #expect(try await server.operatorGet("/admin/apps/a/logs?since=2099-01-01T00:00:00.000Z").text == #"{"results":[]}"#)
            #expect(try await server.operatorGet("/admin/apps/a/logs?since=later").status == 400)
            #expect(try await server.operatorGet("/admin/apps/nope/logs").status == 404)
            #expect(try JSONParser.parse(try await server.operatorGet("/admin/apps/b/logs").text)["results"] == [])
        }
    }
}
