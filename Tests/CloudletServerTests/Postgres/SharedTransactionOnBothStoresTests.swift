import Cloudlet
import CloudletRuntime
import CloudletTesting
import Foundation
import Synchronization
import Testing

@testable import CloudletPostgres

/// A transaction that the writes of several operations join (a transactional batch's), on both
/// stores: the writes are held until the commit, which writes them all in order or none.
@Suite struct SharedTransactionOnBothStoresTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private static let master = Caller(isMaster: true, requestId: "r")

    private func note(_ id: String, _ fields: [String: ParseValue] = [:]) -> ParseObject {
        var object = ParseObject(className: "Note", fields: fields)
        object.objectId = id
        object.createdAt = now
        object.updatedAt = now
        return object
    }

    /// Runs each of `writes`, in turn, as a member of `transaction` until its write is held (or it
    /// has ended), then commits (or rolls back, if one failed before its write); answers the
    /// commit's error, if any, and each write's outcome.
    private static func run(
        _ writes: [@Sendable () async throws -> Void], in transaction: any SharedTransaction, beforeCommit: () async throws -> Void = {}
    ) async throws -> (commit: (any Error)?, outcomes: [(any Error)?]) {
        let outcomes = Outcomes(count: writes.count)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, write) in writes.enumerated() {
                let (reached, reach) = AsyncStream.makeStream(of: Never.self)
                let member = SharedTransactionMember(transaction: transaction, held: { reach.finish() })
                group.addTask {
                    do {
                        try await SharedTransactionMember.$current.withValue(member) { try await write() }
                    } catch {
                        outcomes.errors.withLock { $0[index] = error }
                    }
                    reach.finish()
                }
                for await _ in reached {}
            }
            try await beforeCommit()
            var failure = outcomes.errors.withLock { $0.compactMap { $0 }.first }
            if failure == nil {
                do { try await transaction.commit() } catch { failure = error }
            }
            if failure != nil { transaction.rollBack() }
            try await group.waitForAll()
            return (failure, outcomes.errors.withLock { $0 })
        }
    }

    /// The error of each write, as its task ends.
    private final class Outcomes: Sendable {
        let errors: Mutex<[(any Error)?]>

        init(count: Int) {
            errors = Mutex(Array(repeating: nil, count: count))
        }
    }

    private func deadline(_ clock: any CloudletClock = SystemClock()) -> WriteDeadline {
        WriteDeadline(deadline: clock.now.addingTimeInterval(30), clock: clock, message: "too late")
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func threeHeldWritesCommitTogetherInOrder(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            let b = note("b", ["n": 1])
            let saved = OutboxEvent(kind: .afterSave, object: b, original: nil, caller: Self.master)
            let (failure, outcomes) = try await Self.run(
                [
                    { try await store.insert(self.note("a", ["n": 1]), nil) },
                    { try await store.insert(b, saved) },
                    { _ = try await store.update("Note", "a", ObjectChanges(fields: ["n": .operation(.increment(2))]), self.now + 1, { _ in }, nil) },
                ], in: store.sharedTransaction(deadline()),
                beforeCommit: {
                    let (a, b) = (try await store.fetch("Note", "a"), try await store.fetch("Note", "b"))
                    #expect(a == nil && b == nil, "a held write is not written before the commit")
                })
            #expect(failure == nil)
            #expect(outcomes.allSatisfy { $0 == nil })
            #expect(try await store.fetch("Note", "a")?.fields["n"] == 3, "the update ran after the insert it follows")
            #expect(try await store.fetch("Note", "b") != nil)
            let queued = try await store.work.claim([.afterHook], limit: 10, owner: "loop", at: now, leasedUntil: now + 10)
            #expect(queued.map(\.id) == [saved.id])
        }
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func aFailingSecondWriteRollsBackTheFirst(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            let a = note("a")
            let saved = OutboxEvent(kind: .afterSave, object: a, original: nil, caller: Self.master)
            let transaction = store.sharedTransaction(deadline())
            let (failure, outcomes) = try await Self.run(
                [
                    { try await store.insert(a, saved) },
                    { _ = try await store.update("Note", "missing", ObjectChanges(fields: ["n": .set(1)]), self.now, { _ in }, nil) },
                    { try await store.insert(self.note("c"), nil) },
                ], in: transaction)
            #expect((failure as? ParseError)?.code == ParseError.objectNotFound().code)
            #expect(outcomes[0] is SharedTransactionRolledBack)
            #expect((outcomes[1] as? ParseError)?.code == ParseError.objectNotFound().code)
            #expect(outcomes[2] is SharedTransactionRolledBack)
            #expect(try await store.fetch("Note", "a") == nil)
            #expect(try await store.fetch("Note", "c") == nil)
            #expect(try await store.work.claim([.afterHook], limit: 10, owner: "loop", at: now, leasedUntil: now + 10).isEmpty, "no after hook queued")
            await #expect(throws: SharedTransactionRolledBack.self, "a write after the rollback is refused") {
                try await SharedTransactionMember.$current.withValue(SharedTransactionMember(transaction: transaction, held: {})) {
                    try await store.insert(self.note("d"), nil)
                }
            }
        }
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func aTransactionPastItsDeadlineWritesNothing(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            let clock = ManualClock()
            let (failure, outcomes) = try await Self.run(
                [{ try await store.insert(self.note("a"), nil) }, { try await store.insert(self.note("b"), nil) }],
                in: store.sharedTransaction(deadline(clock)), beforeCommit: { clock.advance(by: .seconds(31)) })
            #expect((failure as? ParseError)?.code == 124)
            #expect(outcomes.allSatisfy { $0 is SharedTransactionRolledBack })
            #expect(try await store.fetch("Note", "a") == nil)
            #expect(try await store.fetch("Note", "b") == nil)
        }
    }

    @Test func queuedWorkJoinsTheTransactionOnPostgreSQL() async throws {
        try await TemporaryPostgres.with { database, schema in
            let objects = try await PostgresObjectStore(database, schema: schema)
            let work = try await PostgresWorkQueue(database, schema: schema)
            let job = NewWork(id: "w1", kind: .afterHook, payload: ["x": 1], due: now)
            let transaction = objects.sharedTransaction(deadline: deadline())
            let (failure, _) = try await Self.run(
                [{ try await work.enqueue([job]) }, { try await objects.insert(self.note("a")) }], in: transaction,
                beforeCommit: {
                    let claimed = try await work.claim([.afterHook], limit: 10, owner: "loop", at: self.now, leasedUntil: self.now + 10)
                    #expect(claimed.isEmpty, "held work is not queued before the commit")
                })
            #expect(failure == nil)
            #expect(try await work.claim([.afterHook], limit: 10, owner: "loop", at: now, leasedUntil: now + 10).map(\.id) == ["w1"])
            let refused = try await Self.run(
                [{ try await work.enqueue([NewWork(id: "w2", kind: .afterHook, payload: [:], due: self.now)]) }, { throw ParseError.objectNotFound() }],
                in: objects.sharedTransaction(deadline: deadline()))
            #expect(refused.outcomes[0] is SharedTransactionRolledBack, "an operation that failed before its write rolls the held ones back")
            #expect(try await work.claim([.afterHook], limit: 10, owner: "loop", at: now, leasedUntil: now + 10).isEmpty)
        }
    }

    @Test func anotherAppsWriteInAMemberTaskIsItsOwnAndIsNotHeld() async throws {
        try await TemporaryPostgres.with { database, schema in
            let objects = try await PostgresObjectStore(database, schema: schema)
            // Another app on the same database, through the same pool.
            let otherSchema = PostgresAppSchema(appId: schema.name + "-other")
            let other = try await PostgresObjectStore(database, schema: otherSchema)
            let transaction = objects.sharedTransaction(deadline: deadline())
            let member = SharedTransactionMember(transaction: transaction, held: { Issue.record("another app's write was held") })
            try await SharedTransactionMember.$current.withValue(member) { try await other.insert(self.note("b")) }
            transaction.rollBack()
            #expect(try await other.fetch("Note", id: "b") != nil, "written at once, in a transaction of its own app")
            #expect(try await objects.fetch("Note", id: "b") == nil)
            try await database.execute("DROP SCHEMA \(otherSchema.quoted) CASCADE")
        }
    }
}
