import CloudletRuntime
import PostgresNIO
import Synchronization

/// A ``SharedTransaction`` over an app's PostgreSQL schema: the writes its members make through
/// ``PostgresWriter/write(_:)`` are held in memory, each with the continuation of the operation
/// that waits for it, and ``commit()`` runs them in order in one PostgreSQL transaction, which
/// commits them all or none. A connection is taken for the commit alone, never while an operation
/// prepares or its hooks run.
final class PostgresSharedTransaction: SharedTransaction {
    /// A write as the writer gives it: its result, and what runs once it has committed.
    typealias Write<Result> = @Sendable (PostgresConnection) async throws -> (Result, PostgresWriter.AfterCommit)

    private enum Phase {
        case preparing, committing, committed, rolledBack
    }

    /// A held write: runs in the shared transaction, answering what lets its operation go on once
    /// it has committed; or fails its operation.
    private struct HeldWrite: Sendable {
        let run: @Sendable (PostgresConnection) async throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// What becomes of a member's write.
    enum Joining<Result: Sendable>: Sendable {
        /// It was held, and has committed with this result.
        case committed(Result)
        /// The transaction has committed already: the write is the member's own, to run by itself.
        case ownWrite
    }

    /// The failure of the held write at `index`, inside the transaction.
    private struct FailedWrite: Error {
        let index: Int
        let error: any Error
    }

    private struct State {
        var phase = Phase.preparing
        var held: [HeldWrite] = []
    }

    let writer: PostgresWriter
    let deadline: WriteDeadline
    private let state = Mutex(State())

    init(writer: PostgresWriter, deadline: WriteDeadline) {
        self.writer = writer
        self.deadline = deadline
    }

    /// Whether the writes of `other` join this transaction: those of the same app on the same database.
    func joins(_ other: PostgresWriter) -> Bool {
        other.database === writer.database && other.schema.name == writer.schema.name
    }

    /// Joins `write` to the transaction for the member whose write it is: while the transaction
    /// prepares, holds it (calling `held`) and answers once it has committed; after the commit,
    /// answers ``Joining/ownWrite``. Throws the write's error, or ``SharedTransactionRolledBack``.
    func join<Result: Sendable>(_ write: @escaping Write<Result>, held: @Sendable () -> Void) async throws -> Joining<Result> {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Joining<Result>, any Error>) in
            let entry = HeldWrite(
                run: { connection in
                    let (result, afterCommit) = try await write(connection)
                    return {
                        for action in afterCommit { action() }
                        continuation.resume(returning: .committed(result))
                    }
                },
                fail: { continuation.resume(throwing: $0) })
            let phase = state.withLock { state in
                if state.phase == .preparing { state.held.append(entry) }
                return state.phase
            }
            switch phase {
            case .preparing: held()
            case .rolledBack: continuation.resume(throwing: SharedTransactionRolledBack())
            case .committing, .committed: continuation.resume(returning: .ownWrite)
            }
        }
    }

    func commit() async throws {
        let held = state.withLock { state in
            state.phase = .committing
            return state.held
        }
        let deadline = deadline
        do {
            try deadline.check()
            let resumes = try await writer.database.transaction { connection in
                var resumes: [@Sendable () -> Void] = []
                for (index, write) in held.enumerated() {
                    do { resumes.append(try await write.run(connection)) } catch { throw FailedWrite(index: index, error: error) }
                }
                try deadline.check()
                return resumes
            }
            state.withLock { state in
                state.phase = .committed
                state.held = []
            }
            for resume in resumes { resume() }
        } catch {
            let failed = error as? FailedWrite
            state.withLock { state in
                state.phase = .rolledBack
                state.held = []
            }
            for (index, write) in held.enumerated() {
                write.fail(index == failed?.index ? failed!.error : SharedTransactionRolledBack())
            }
            throw failed?.error ?? error
        }
    }

    func rollBack() {
        let held = state.withLock { state in
            state.phase = .rolledBack
            defer { state.held = [] }
            return state.held
        }
        for write in held { write.fail(SharedTransactionRolledBack()) }
    }
}

extension PostgresObjectStore {
    /// A new transaction that the writes of several operations join — of this app's objects and
    /// queued work — to commit by `deadline` (see ``SharedTransaction``).
    public func sharedTransaction(deadline: WriteDeadline) -> any SharedTransaction {
        PostgresSharedTransaction(writer: writer, deadline: deadline)
    }
}
