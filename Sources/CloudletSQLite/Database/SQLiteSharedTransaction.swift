import CloudletRuntime
import GRDB
import Synchronization

/// A ``SharedTransaction`` over an app's database: the writes its members make through
/// ``SQLiteAppDatabase/write(_:)`` are held in memory, each with the continuation of the operation
/// that waits for it, and ``commit()`` runs them as one write of a group (``SQLiteWriteGroups``):
/// in one savepoint of the group's transaction, so they commit with the group or roll back
/// together, alone. The writer is held for that alone, never while an operation's hooks run.
final class SQLiteSharedTransaction: SharedTransaction {
    private enum Phase {
        case preparing, committing, committed, rolledBack
    }

    /// A held write: runs in the shared transaction, answering what lets its operation go on once
    /// it has committed; or fails its operation.
    private struct HeldWrite: Sendable {
        let run: @Sendable (Database) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// What becomes of a member's write.
    enum Joining<Value: Sendable>: Sendable {
        /// It was held, and has committed with this value.
        case committed(Value)
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

    let database: SQLiteAppDatabase
    let deadline: WriteDeadline
    private let state = Mutex(State())

    init(database: SQLiteAppDatabase, deadline: WriteDeadline) {
        self.database = database
        self.deadline = deadline
    }

    /// Joins `write` to the transaction for the member whose write it is: while the transaction
    /// prepares, holds it (calling `held`) and answers once it has committed; after the commit,
    /// answers ``Joining/ownWrite``. Throws the write's error, or ``SharedTransactionRolledBack``.
    func join<Value: Sendable>(_ write: @escaping @Sendable (Database) throws -> Value, held: @Sendable () -> Void) async throws -> Joining<Value> {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Joining<Value>, any Error>) in
            let entry = HeldWrite(
                run: { db in
                    let value = try write(db)
                    return { continuation.resume(returning: .committed(value)) }
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
            // One write of a group: the batch's writes roll back together, and alone.
            let resumes = try await database.writeGroups.write(deadline: deadline) { db in
                var resumes: [@Sendable () -> Void] = []
                for (index, write) in held.enumerated() {
                    do { resumes.append(try write.run(db)) } catch { throw FailedWrite(index: index, error: error) }
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
