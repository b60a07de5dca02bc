import Cloudlet
import Foundation
import Synchronization

/// Runs the operations of a `POST /batch` with `"transaction": true` as one: each in turn up to its
/// write (its checks and its before hook, which see the objects as stored before the batch), where
/// the write is held; then every held write in one ``SharedTransaction``; then, once it has
/// committed, the rest of each operation (its after hook), in turn. The first failure — an
/// operation refused before its write, or a write refused inside the transaction — ends the batch:
/// the operations after it do not run, nothing is written, no after hook runs and no work is
/// queued.
///
/// ```swift
/// switch await TransactionalBatch(runtime.context).run(operations.count, { index in try await perform(operations[index]) }) {
/// case .committed(let outcomes): …
/// case .rolledBack(let error): throw error
/// }
/// ```
public struct TransactionalBatch: Sendable {
    /// How long a transactional batch may take from its start to its commit; past it the batch
    /// answers 124 (HTTP 504) and nothing is written. The writer is held only for the commit.
    public static let timeLimit: Duration = .seconds(30)

    /// How a transactional batch ended.
    public enum Outcome<Value: Sendable>: Sendable {
        /// Its writes committed: each operation's outcome, in order. (An operation can still fail
        /// after the commit, in a step of its own that follows its write.)
        case committed([Result<Value, any Error>])
        /// Nothing was written: the first failure's error.
        case rolledBack(any Error)
    }

    let app: AppContext

    /// The transactional batches of the app of `app`.
    public init(_ app: AppContext) {
        self.app = app
    }

    /// Runs `count` operations, `operation(0)` to `operation(count - 1)`, as one transaction.
    public func run<Value: Sendable>(_ count: Int, _ operation: @escaping @Sendable (Int) async throws -> Value) async -> Outcome<Value> {
        let deadline = WriteDeadline(
            deadline: app.clock.now.addingTimeInterval(Self.timeLimit.seconds), clock: app.clock,
            message: "the transaction's time ran out before it committed")
        let transaction = app.stores.objects.sharedTransaction(deadline: deadline)
        let outcomes = Outcomes<Value>(count: count)
        let turns = Turns()
        return await withTaskGroup(of: Void.self) { group in
            var failure: (any Error)?
            for index in 0..<count {
                do {
                    try deadline.check()
                    try Task.checkCancellation()
                } catch {
                    failure = error
                    break
                }
                // Finished when the operation's write is held or the operation has ended.
                let (reached, reach) = AsyncStream.makeStream(of: Never.self)
                let member = SharedTransactionMember(
                    transaction: transaction, held: { reach.finish() }, waitForTurn: { await turns.wait(untilEndedBefore: index) })
                group.addTask {
                    let outcome: Result<Value, any Error>
                    do {
                        outcome = .success(try await SharedTransactionMember.$current.withValue(member) { try await operation(index) })
                    } catch {
                        outcome = .failure(error)
                    }
                    outcomes.set(index, outcome)
                    turns.end(index)
                    reach.finish()
                }
                for await _ in reached {}
                if case .failure(let error) = outcomes.get(index) {
                    failure = error
                    break
                }
            }
            if failure == nil {
                do {
                    try Task.checkCancellation()
                    try await transaction.commit()
                } catch {
                    failure = error
                }
            }
            if failure != nil { transaction.rollBack() }
            await group.waitForAll()
            if let failure { return .rolledBack(failure) }
            return .committed((0..<count).map { outcomes.get($0) ?? .failure(SharedTransactionRolledBack()) })
        }
    }

    /// Which operations have ended, for those that wait until every one before them has.
    private final class Turns: Sendable {
        private struct State {
            var ended: Set<Int> = []
            /// How many operations from the first have all ended.
            var endedBefore = 0
            var waiting: [(index: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Mutex(State())

        /// Returns once every operation before `index` has ended.
        func wait(untilEndedBefore index: Int) async {
            await withCheckedContinuation { continuation in
                let isTurn = state.withLock { state in
                    if state.endedBefore < index { state.waiting.append((index, continuation)) }
                    return state.endedBefore >= index
                }
                if isTurn { continuation.resume() }
            }
        }

        /// The operation at `index` has ended.
        func end(_ index: Int) {
            let ready = state.withLock { state in
                state.ended.insert(index)
                while state.ended.contains(state.endedBefore) { state.endedBefore += 1 }
                let endedBefore = state.endedBefore
                defer { state.waiting.removeAll { $0.index <= endedBefore } }
                return state.waiting.filter { $0.index <= endedBefore }.map(\.continuation)
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// The outcome of each operation, as its task ends.
    private final class Outcomes<Value: Sendable>: Sendable {
        private let table: Mutex<[Result<Value, any Error>?]>

        init(count: Int) {
            table = Mutex(Array(repeating: nil, count: count))
        }

        func set(_ index: Int, _ outcome: Result<Value, any Error>) {
            table.withLock { $0[index] = outcome }
        }

        /// The outcome of the operation at `index`; nil while it runs.
        func get(_ index: Int) -> Result<Value, any Error>? {
            table.withLock { $0[index] }
        }
    }
}
