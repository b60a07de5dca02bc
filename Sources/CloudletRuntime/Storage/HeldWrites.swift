import Synchronization

/// What becomes of the write a member of a ``SharedTransaction`` makes.
package enum HeldWriteOutcome<Result: Sendable>: Sendable {
    /// It was held, and has committed with this result.
    case committed(Result)
    /// The transaction has committed already: the write is the member's own, to run by itself.
    case ownWrite
}

/// The failure, inside the shared transaction, of the held write at `index`: what a store's commit
/// throws so that ``HeldWrites/commit(_:)`` gives that write its own error.
package struct HeldWriteFailed: Error {
    package let index: Int
    package let error: any Error

    package init(index: Int, error: any Error) {
        self.index = index
        self.error = error
    }
}

/// The writes a ``SharedTransaction`` holds while it prepares, each with the continuation of the
/// operation that waits for it, and the phases the transaction goes through: every store's shared
/// transaction keeps its writes here and commits them its own way. `Run` is how a store runs one
/// held write in its transaction; it answers what lets the write's operation go on once the
/// transaction has committed.
package final class HeldWrites<Run: Sendable>: Sendable {
    private enum Phase {
        case preparing, committing, committed, rolledBack
    }

    private struct HeldWrite: Sendable {
        let run: Run
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var phase = Phase.preparing
        var held: [HeldWrite] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Holds the write `run` makes of its operation's resumption while the transaction prepares
    /// (calling `held`) and answers once it has committed; after the commit, answers
    /// ``HeldWriteOutcome/ownWrite``. Throws the write's error, or ``SharedTransactionRolledBack``.
    package func join<Result: Sendable>(
        _ run: (_ resume: @escaping @Sendable (Result) -> Void) -> Run, held: @Sendable () -> Void
    ) async throws -> HeldWriteOutcome<Result> {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HeldWriteOutcome<Result>, any Error>) in
            let entry = HeldWrite(run: run { continuation.resume(returning: .committed($0)) }, fail: { continuation.resume(throwing: $0) })
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

    /// Runs the held writes, in the order held, with `commit` (which runs them in one transaction
    /// and answers each one's resumption, or throws ``HeldWriteFailed`` for the one that failed),
    /// then lets their operations go on. If it throws, every operation fails: the failed write's
    /// with its error, the others with ``SharedTransactionRolledBack``; this throws that error.
    package func commit(_ commit: ([Run]) async throws -> [@Sendable () -> Void]) async throws {
        let held = state.withLock { state in
            state.phase = .committing
            return state.held
        }
        do {
            let resumes = try await commit(held.map(\.run))
            end(.committed)
            for resume in resumes { resume() }
        } catch {
            let failed = error as? HeldWriteFailed
            end(.rolledBack)
            for (index, write) in held.enumerated() {
                write.fail(index == failed?.index ? failed!.error : SharedTransactionRolledBack())
            }
            throw failed?.error ?? error
        }
    }

    /// Drops every held write: their operations get ``SharedTransactionRolledBack``, as does any
    /// write they make afterwards.
    package func rollBack() {
        let held = state.withLock { state in
            state.phase = .rolledBack
            defer { state.held = [] }
            return state.held
        }
        for write in held { write.fail(SharedTransactionRolledBack()) }
    }

    private func end(_ phase: Phase) {
        state.withLock { state in
            state.phase = phase
            state.held = []
        }
    }
}
