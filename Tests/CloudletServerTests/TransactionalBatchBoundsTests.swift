import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Synchronization
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// A transactional batch under hostile input and beside other writers: bounded, holding SQLite's
/// writer only for its commit, its hooks' own writes outside it, other apps untouched.
@Suite("POST /batch with transaction: bounds and isolation")
struct TransactionalBatchBoundsTests {
    typealias Batch = TransactionalBatchTests

    /// A gate hooks wait at until the test opens it.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let isOpen = state.withLock { state in
                    if !state.isOpen { state.waiters.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    @Test("50 large operations, the last one refused: nothing stored; 50 valid ones commit; 51 are refused", arguments: TestStore.allCases)
    func largeHostileBatch(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let filler = String(repeating: "x", count: 18_000)
            var operations = (0..<49).map { Batch.operation("POST", "/classes/Bulk", ["n": .number(Double($0)), "filler": .string(filler)]) }
            operations.append(Batch.operation("POST", "/classes/Bulk", ["n": "not a number", "filler": .string(filler)]))
            Support.expectError(try await Batch.transaction(client, operations), status: 400, code: 111)
            #expect(try await Support.masterCount(client, "Bulk") == 0)
            operations[49] = Batch.operation("POST", "/classes/Bulk", ["n": 49, "filler": .string(filler)])
            let committed = try await Batch.transaction(client, operations)
            #expect(committed.status == 200)
            #expect(committed.body.arrayValue?.allSatisfy { $0["success"]?["objectId"] != nil } == true)
            #expect(try await Support.masterCount(client, "Bulk") == 50)
            let tooMany = try await Batch.transaction(client, operations + [Batch.operation("POST", "/classes/Bulk", ["n": 50])])
            Support.expectError(tooMany, status: 400, code: 107)
            #expect(try await Support.masterCount(client, "Bulk") == 50)
        }
    }

    @Test("while a before hook of the batch runs, its earlier writes are invisible and other saves are not held up", arguments: TestStore.allCases)
    func writerFreeWhileHooksRun(store: TestStore) async throws {
        let gate = Gate()
        let log = HookLog()
        var hooks = HookRegistry()
        hooks.beforeSave("Slow", timeLimit: .seconds(20)) { _ in
            log.append("entered")
            await gate.wait()
        }
        try await store.withRouter(registry: hooks) { client in
            async let batch = Batch.transaction(
                client, [Batch.operation("POST", "/classes/Orders", ["amount": 1]), Batch.operation("POST", "/classes/Slow", ["n": 1])])
            try await Support.eventually { log.all == ["entered"] }
            #expect(try await Support.masterCount(client, "Orders") == 0, "a held write is not visible before the commit")
            let meanwhile = try await client.post("/classes/Other", ["n": 1])
            #expect(meanwhile.status == 201, "a save beside the batch is not held up by it")
            gate.open()
            #expect(try await batch.status == 200)
            #expect(try await Support.masterCount(client, "Orders") == 1)
            #expect(try await Support.masterCount(client, "Slow") == 1)
        }
    }

    @Test("a before hook's own store writes are not part of the transaction: they stay when it rolls back", arguments: TestStore.allCases)
    func hookStoreCallsOutside(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Orders") { request in
            _ = try await request.store.save(ParseObject(className: "Audit", fields: ["amount": request.object["amount"] ?? .null]))
            if (request.object["amount"]?.doubleValue ?? 0) < 0 { throw HookError.validation("amount must not be negative") }
        }
        try await store.withRouter(registry: hooks) { client in
            let reply = try await Batch.transaction(
                client, [Batch.operation("POST", "/classes/Orders", ["amount": 1]), Batch.operation("POST", "/classes/Orders", ["amount": -1])])
            Support.expectError(reply, status: 400, code: 142)
            #expect(try await Support.masterCount(client, "Orders") == 0)
            #expect(try await Support.masterCount(client, "Audit") == 2)
        }
    }

    @Test("another app's objects are untouched by a batch rolled back or committed beside them", arguments: TestStore.allCases)
    func anotherAppUntouched(store: TestStore) async throws {
        let log = HookLog()
        try await ObservedServer.with(executorOfB: InProcessHookExecutor(registry: Batch.hooks(log)), store: store) { server in
            let kept = try await Support.create(server.a, "Orders", ["amount": -7])
            let refused = try await Batch.transaction(
                server.b, [Batch.operation("POST", "/classes/Orders", ["amount": 1]), Batch.operation("POST", "/classes/Orders", ["amount": -1])])
            Support.expectError(refused, status: 400, code: 142)
            let committed = try await Batch.transaction(server.b, [Batch.operation("POST", "/classes/Orders", ["amount": 2])])
            #expect(committed.status == 200)
            let createdInB = try #require(committed.body.arrayValue?.first?["success"]?["objectId"]?.stringValue)
            #expect(try await Support.masterCount(server.a, "Orders") == 1)
            #expect(try await server.a.get("/classes/Orders/\(kept)")["amount"] == -7)
            Support.expectError(try await server.a.get("/classes/Orders/\(createdInB)"), status: 404, code: 101)
            #expect(try await Support.masterCount(server.b, "Orders") == 1)
        }
    }
}

/// ``SQLiteSharedTransaction`` itself: held writes commit in order in one transaction, or none does.
@Suite struct SharedTransactionTests {
    static func note(_ id: String) -> ParseObject {
        var object = ParseObject(className: "Notes", fields: ["n": 1])
        object.objectId = id
        object.createdAt = Date()
        object.updatedAt = object.createdAt
        return object
    }

    /// Runs `write` as a member of `transaction` in a task of its own, once it is held.
    static func held<Value: Sendable>(
        in transaction: any SharedTransaction, _ write: @escaping @Sendable () async throws -> Value
    ) async -> (member: SharedTransactionMember, task: Task<Value, any Error>) {
        let (reached, reach) = AsyncStream.makeStream(of: Never.self)
        let member = SharedTransactionMember(transaction: transaction, held: { reach.finish() })
        let task = Task { try await SharedTransactionMember.$current.withValue(member) { try await write() } }
        for await _ in reached {}
        return (member, task)
    }

    @Test func heldWritesCommitInOrderInOneTransactionAndLaterOnesRunOnTheirOwn() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = AppStores(database).objects
            let transaction = objects.sharedTransaction(deadline: WriteDeadline(deadline: .distantFuture, clock: SystemClock()))
            let (member, insert) = await Self.held(in: transaction) { try await objects.insert(Self.note("a"), outbox: nil) }
            let increment = ObjectChanges(fields: ["n": .operation(.increment(2))])
            let (_, update) = await Self.held(in: transaction) {
                try await objects.update("Notes", id: "a", changes: increment, updatedAt: Date(), check: { _ in }, outbox: nil)
            }
            #expect(try await objects.fetch("Notes", id: "a") == nil, "nothing is written before the commit")
            try await transaction.commit()
            try await insert.value
            #expect(try await update.value["n"] == 3, "the update saw the insert held before it")
            try await SharedTransactionMember.$current.withValue(member) { try await objects.insert(Self.note("b"), outbox: nil) }
            #expect(try await objects.fetch("Notes", id: "b") != nil)
        }
    }

    @Test func pastItsDeadlineNothingCommitsAndTheMembersLaterWritesAreRefused() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = AppStores(database).objects
            let late = WriteDeadline(deadline: Date().addingTimeInterval(-1), clock: SystemClock(), message: "late")
            let transaction = objects.sharedTransaction(deadline: late)
            let (member, insert) = await Self.held(in: transaction) { try await objects.insert(Self.note("a"), outbox: nil) }
            let commit = await #expect(throws: ParseError.self) { try await transaction.commit() }
            #expect(commit?.code == 124)
            await #expect(throws: SharedTransactionRolledBack.self) { try await insert.value }
            await #expect(throws: SharedTransactionRolledBack.self) {
                try await SharedTransactionMember.$current.withValue(member) { try await objects.insert(Self.note("b"), outbox: nil) }
            }
            let stored = try await [objects.fetch("Notes", id: "a"), objects.fetch("Notes", id: "b")]
            #expect(stored.allSatisfy { $0 == nil })
        }
    }
}
