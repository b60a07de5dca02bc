import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The work queue on each store, SQLite on a real database file and PostgreSQL on a real server:
/// leases, completion, retries at a backoff's due time, release on shutdown, and leases that ran out
/// claimed again by another holder.
@Suite struct WorkQueueTests {
    private let now = Date(timeIntervalSince1970: 1_000_000)
    private static let other = WorkKind(rawValue: "other")

    private func work(_ id: String, kind: WorkKind = .job, dueIn seconds: TimeInterval = 0) -> NewWork {
        NewWork(id: id, kind: kind, payload: ["id": .string(id)], due: now.addingTimeInterval(seconds))
    }

    @Test(arguments: TestStore.allCases) func aClaimLeasesDueRowsOfItsKindsOldestFirstAndNoOtherClaimTakesThem(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("later", dueIn: 60), work("b", dueIn: -1), work("a", dueIn: -2), work("x", kind: Self.other)])
            let first = try await queue.claim([.job], limit: 10, owner: "one", at: now, leasedUntil: now + 30)
            #expect(first.map(\.id) == ["a", "b"])
            #expect(first.allSatisfy { $0.attempts == 1 && $0.owner == "one" && $0.leasedUntil == now + 30 })
            #expect(first.first?.payload == ["id": "a"])
            #expect(try await queue.claim([.job], limit: 10, owner: "two", at: now, leasedUntil: now + 30).isEmpty)
            #expect(try await queue.claim([.job, Self.other], limit: 1, owner: "two", at: now, leasedUntil: now + 30).map(\.id) == ["x"])
            #expect(try await queue.nextDue([.job]) == now + 30, "the leased rows are due when their lease runs out")
        }
    }

    @Test(arguments: TestStore.allCases) func queuingAnIdThatIsQueuedLeavesItAlone(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("a")])
            _ = try await queue.claim([.job], limit: 1, owner: "one", at: now, leasedUntil: now + 30)
            try await queue.enqueue([work("a")])
            #expect(try await queue.claim([.job], limit: 1, owner: "two", at: now, leasedUntil: now + 30).isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func completedWorkIsGoneAndOnlyItsHolderCompletesIt(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("a")])
            _ = try await queue.claim([.job], limit: 1, owner: "one", at: now, leasedUntil: now + 30)
            #expect(try await queue.complete("a", owner: "two") == false)
            #expect(try await queue.complete("a", owner: "one"))
            #expect(try await queue.nextDue([.job]) == nil)
            #expect(try await queue.claim([.job], limit: 1, owner: "one", at: now + 60, leasedUntil: now + 90).isEmpty)
        }
    }

    @Test(arguments: TestStore.allCases) func failedWorkIsDueAgainAtItsBackoffWithItsAttemptsCounted(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            let backoff = Backoff(first: .seconds(1), maximum: .seconds(300))
            try await queue.enqueue([work("a")])
            var claimed = try #require(try await queue.claim([.job], limit: 1, owner: "one", at: now, leasedUntil: now + 30).first)
            let due = backoff.due(afterAttempt: claimed.attempts, failedAt: now)
            #expect(try await queue.retry("a", owner: "one", at: due))
            #expect(try await queue.claim([.job], limit: 1, owner: "one", at: now + 0.5, leasedUntil: now + 30).isEmpty)
            claimed = try #require(try await queue.claim([.job], limit: 1, owner: "one", at: now + 1, leasedUntil: now + 31).first)
            #expect(claimed.attempts == 2)
            #expect(backoff.due(afterAttempt: claimed.attempts, failedAt: now + 1) == now + 3)
        }
    }

    @Test(arguments: TestStore.allCases) func releasedWorkIsDueAtOnceWithoutCountingTheAttempt(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("a"), work("b")])
            let held = try await queue.claim([.job], limit: 2, owner: "one", at: now, leasedUntil: now + 30)
            #expect(try await queue.release(held.map(\.id), owner: "one", at: now + 1) == 2)
            let again = try await queue.claim([.job], limit: 2, owner: "two", at: now + 1, leasedUntil: now + 31)
            #expect(again.map(\.id) == ["a", "b"])
            #expect(again.allSatisfy { $0.attempts == 1 })
        }
    }

    @Test(arguments: TestStore.allCases) func aLeaseThatRanOutIsClaimedByAnotherHolderAndTheFirstCanNoLongerTouchIt(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("a")])
            _ = try await queue.claim([.job], limit: 1, owner: "gone", at: now, leasedUntil: now + 30)
            #expect(try await queue.renew(["a"], owner: "gone", leasedUntil: now + 40) == 1)
            #expect(try await queue.claim([.job], limit: 1, owner: "next", at: now + 35, leasedUntil: now + 65).isEmpty, "renewed")
            let taken = try #require(try await queue.claim([.job], limit: 1, owner: "next", at: now + 40, leasedUntil: now + 70).first)
            #expect(taken.attempts == 2)
            #expect(try await queue.renew(["a"], owner: "gone", leasedUntil: now + 80) == 0)
            #expect(try await queue.complete("a", owner: "gone") == false)
            #expect(try await queue.complete("a", owner: "next"))
        }
    }

    @Test(arguments: TestStore.allCases) func queuedWorkOutlivesTheProcessThatQueuedIt(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, reopen in
            try await queue.enqueue([work("a")])
            _ = try await queue.claim([.job], limit: 1, owner: "killed", at: now, leasedUntil: now + 30)
            let reopened = try await reopen()
            let taken = try await reopened.claim([.job], limit: 1, owner: "restarted", at: now + 30, leasedUntil: now + 60)
            #expect(taken.map(\.id) == ["a"])
        }
    }

    @Test(arguments: TestStore.allCases) func aSoleHolderTakesBackWhatOthersLeasedAndLeavesItsOwnAndRetriedRowsAlone(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("gone1"), work("gone2"), work("mine"), work("retried"), work("later", dueIn: 60)])
            _ = try await queue.claim([.job], limit: 2, owner: "killed", at: now, leasedUntil: now + 30)
            _ = try await queue.claim([.job], limit: 2, owner: "me", at: now, leasedUntil: now + 30)
            #expect(try await queue.retry("retried", owner: "me", at: now + 20))
            #expect(try await queue.takeBack(leasedByOthersThan: "me", at: now + 1) == 2)
            let taken = try await queue.claim([.job], limit: 10, owner: "me", at: now + 1, leasedUntil: now + 31)
            #expect(taken.map(\.id) == ["gone1", "gone2"], "due at once, not when the killed holder's leases run out")
            #expect(taken.allSatisfy { $0.attempts == 2 }, "the interrupted attempt stays counted")
            #expect(try await queue.complete("mine", owner: "me"), "its own lease is untouched")
            #expect(try await queue.nextDue([.job]) == now + 20, "the retried row keeps its due time")
        }
    }

    @Test(arguments: TestStore.allCases) func aClaimOverSeveralKindsTakesTheirRowsInDueOrderThenQueueOrder(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([
                work("job-later", dueIn: -1), work("hook-first", kind: .afterHook, dueIn: -3), work("job-tie", dueIn: -2),
                work("hook-tie", kind: .afterHook, dueIn: -2), work("hook-leased", kind: .afterHook, dueIn: -4), work("other", kind: Self.other),
            ])
            _ = try await queue.claim([.afterHook], limit: 1, owner: "one", at: now, leasedUntil: now + 30)
            let taken = try await queue.claim([.job, .afterHook], limit: 3, owner: "two", at: now, leasedUntil: now + 30)
            #expect(taken.map(\.id) == ["hook-first", "job-tie", "hook-tie"], "oldest due first; a tie in the order queued")
            #expect(try await queue.nextDue([.job, .afterHook, Self.other]) == now - 1, "the job the limit left")
            #expect(try await queue.nextDue([.afterHook, Self.other]) == now, "the other kind's row")
            #expect(try await queue.nextDue([.afterHook]) == now + 30, "the leased hooks, when their leases run out")
        }
    }

    /// The claim and the next due time read the `(kind, due)` index, each kind from its earliest
    /// row, and never scan the table: their cost does not grow with the rows leased or retried.
    @Test func theClaimAndTheNextDueTimeReadTheDueIndex() async throws {
        try await TemporaryStorage.with { database, _ in
            for kinds in 1...4 {
                let kindArguments = StatementArguments((0..<kinds).map { "kind\($0)" })
                for (sql, arguments) in [
                    (SQLiteWorkQueue.claimSQL(kinds: kinds), kindArguments + [1.0, 10]), (SQLiteWorkQueue.nextDueSQL(kinds: kinds), kindArguments),
                ] {
                    let plan = try await database.pool.read { db in
                        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: arguments).map { $0["detail"] as String }
                    }
                    let reads = plan.filter { $0.contains("work_queue") }
                    #expect(!reads.isEmpty && reads.allSatisfy { $0.hasPrefix("SEARCH work_queue USING") && $0.contains("INDEX work_queue_due (kind=?") }, "\(plan)")
                }
            }
        }
    }

    @Test(arguments: TestStore.allCases) func queuingWakesTheLoopThatClaims(_ store: TestStore) async throws {
        try await store.with(TestApp.workQueue) { queue, _ in
            try await queue.enqueue([work("a")])
            await queue.workQueued.wait()
        }
    }
}

@Suite struct BackoffTests {
    @Test func theWaitDoublesFromTheFirstUpToTheMaximum() {
        let backoff = Backoff(first: .milliseconds(100), maximum: .milliseconds(500))
        #expect((1...5).map { backoff.delay(afterAttempt: $0) } == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500)])
        #expect(backoff.ceiling(afterAttempt: 10_000) == .milliseconds(500))
    }

    @Test func aWorkerSlotRestartsAtOnceThenByTheBackoff() {
        var restarts = RestartBackoff(base: .milliseconds(100), maximum: .milliseconds(500))
        #expect((0..<4).map { _ in restarts.nextDelay() } == [.zero, .milliseconds(100), .milliseconds(200), .milliseconds(400)])
    }
}

/// A database made before the work queue keeps the job runs an earlier version left running: the
/// migration queues them, so that they run again rather than staying `running` for ever.
@Suite struct WorkQueueMigrationTests {
    @Test func runsLeftRunningBeforeTheQueueAreQueuedByItsMigration() async throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let old = try await OldAppDatabase(madeUpTo: "file_usage") { db in
            try db.execute(
                sql: """
                    INSERT INTO objects (class, id, created_at, updated_at, acl, data) VALUES
                        ('_JobStatus', 'run1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{}',
                         '{"jobName":"tidy","source":"api","status":"running","params":{"rooms":3}}'),
                        ('_JobStatus', 'run2', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{}',
                         '{"jobName":"tidy","source":"api","status":"succeeded","params":{}}');
                    """)
        }
        defer { old.remove() }
        let path = old.path
        let queue = SQLiteWorkQueue(try SQLiteAppDatabase(path: path))
        let queued = try await queue.claim([.job], limit: 10, owner: "new", at: now, leasedUntil: now + 10)
        #expect(queued.map(\.id) == ["run1"], "the ended run is not queued")
        #expect(queued.first?.payload["name"] == "tidy")
        #expect(queued.first?.payload["params"] == ["rooms": 3])
    }
}
