import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// An app's hook log on each store: pruned to the newest runs with contiguous sequence numbers
/// however the writes come, each run read back as it was written.
@Suite struct HookRunStoreTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000.25)

    private func runs(_ range: Range<Int>, hook: String = "function:ok") -> [HookRun] {
        range.map { HookRun(hook: hook, requestId: "r\($0)", startedAt: now, duration: .microseconds(1_500), outcome: .ok) }
    }

    @Test(arguments: TestStore.allCases) func aWriteLargerThanOneTransactionKeepsTheNewestRuns(_ store: TestStore) async throws {
        try await store.with(TestApp.hookRuns) { log, reopen in
            let count = 2 * HookRunLog.runsPerTransaction + 88
            try await log.appendHookRuns(runs(0..<count), retention: 10_000)
            let all = try await reopen().hookRuns(HookRunQuery(limit: 10_000))
            #expect(all.map(\.sequence) == (1...Int64(count)).map { $0 })
            #expect(all.map(\.requestId) == runs(0..<count).map(\.requestId))

            try await log.appendHookRuns(runs(count..<count + 1), retention: 100)
            let kept = try await log.hookRuns(HookRunQuery(limit: 10_000))
            #expect(kept.count == 100)
            #expect(kept.last?.requestId == "r\(count)")
            #expect(try await log.hookRuns(HookRunQuery(limit: 0)).isEmpty)
            #expect(try await log.hookRuns(HookRunQuery(limit: -1)).isEmpty)
            try await log.appendHookRuns(runs(0..<1), retention: 0)
            #expect(try await log.hookRuns(HookRunQuery(limit: 10)).isEmpty, "a retention of 0 keeps nothing")
        }
    }

    @Test(arguments: TestStore.allCases) func writesAtOnceKeepExactlyTheRetentionWithContiguousSequences(_ store: TestStore) async throws {
        try await store.with(TestApp.hookRuns) { log, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask { try await log.appendHookRuns(runs(writer * 50..<writer * 50 + 50), retention: 300) }
                }
                try await group.waitForAll()
            }
            let kept = try await log.hookRuns(HookRunQuery(limit: 1_000))
            #expect(kept.count == 300)
            #expect(kept.map(\.sequence) == (101...400).map { Int64($0) })
            #expect(Set(kept.map(\.requestId)).count == 300)
            #expect(try await log.hookRuns(HookRunQuery(after: 390, limit: 1_000)).map(\.sequence) == (391...400).map { Int64($0) })
        }
    }

    @Test(arguments: TestStore.allCases) func aRunIsReadBackAsItWasWrittenItsNamesAndErrorUpToANul(_ store: TestStore) async throws {
        try await store.with(TestApp.hookRuns) { log, reopen in
            let line = HookRun.Line(time: now, level: "warn", message: "said \u{0} '; DROP TABLE hook_runs; --", metadata: ["k\u{0}": "v\"\\"])
            let hostile = HookRun(
                hook: "function:a\u{0}b", requestId: "r'; DROP TABLE hook_runs; --", startedAt: now, duration: .microseconds(2_345_678),
                outcome: .error, error: "thrown $1 🚀\u{0} and more", lines: [line], droppedLines: 7)
            try await log.appendHookRuns([hostile] + runs(0..<1, hook: "function:b"), retention: 10)
            var expected = hostile
            expected.sequence = 1
            expected.hook = "function:a"
            expected.error = "thrown $1 🚀"
            let reopened = try await reopen()
            #expect(try await reopened.hookRuns(HookRunQuery(hook: "function:a")) == [expected])
            #expect(try await reopened.hookRuns(HookRunQuery(hook: "function:a\u{0}c")) == [expected], "a hook asked for is cut at a NUL too")
            #expect(try await reopened.hookRuns(HookRunQuery(hook: "function:b")).map(\.requestId) == ["r0"])
            #expect(try await reopened.hookRuns(HookRunQuery(hook: "'; --")).isEmpty)
            #expect(try await reopened.hookRuns(HookRunQuery(since: now + 0.001)).isEmpty)
            #expect(try await reopened.hookRuns(HookRunQuery(since: now)).count == 2)
        }
    }
}
