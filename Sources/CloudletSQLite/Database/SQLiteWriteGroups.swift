import CloudletRuntime
import GRDB
import Synchronization

/// Group commit over an app's one writer: the writes that reach it while it is busy share its next
/// transaction. Each runs in a savepoint of its own, so one that fails (a unique value taken, a
/// type mismatch, its deadline passed) rolls back alone and answers its own error; each is
/// answered only once the shared `COMMIT` has succeeded, and if that fails every write of the group
/// gets its error. A group takes at most ``maximumWrites`` writes and stops taking more once
/// it has run for ``maximumDuration``: the writes queued behind it wait for the next group, and
/// writes that bypass the groups (work-queue claims, sessions) get their turn between two groups.
///
/// What a write asks to run once it has committed goes through ``Database/afterCommit(_:)``, so
/// that a write rolled back to its savepoint leaves nothing behind in the caches.
package final class SQLiteWriteGroups: Sendable {
    /// The most writes one transaction takes.
    static let maximumWrites = 128
    /// How long a group takes new writes: past it, it commits the ones it ran.
    static let maximumDuration: Duration = .milliseconds(10)

    /// A write waiting for the writer: runs in the group's transaction, answering what acknowledges
    /// it once the group has committed; or is failed with an error.
    private struct Write: Sendable {
        let run: @Sendable (Database) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
        let deadline: WriteDeadline?
    }

    /// The errors of the writes of a group whose deadline passed after they ran, before the group
    /// committed, by their place in the group.
    private struct Expired: Error {
        let errors: [Int: any Error]
    }

    private struct State {
        var queued = WriteQueue<Write>()
        /// Whether a group is scheduled or running on the writer.
        var isWriting = false
    }

    private let pool: DatabasePool
    private let state = Mutex(State())
    /// How many groups have committed, and the writes they held: for the tests.
    private let counts = Mutex((groups: 0, writes: 0))

    init(pool: DatabasePool) {
        self.pool = pool
    }

    /// Runs `body` in the next group's transaction, in a savepoint of its own, and answers its value
    /// once that transaction has committed. If `deadline` has passed by the commit, the write is
    /// rolled back and answers 124. A task cancelled before it queues its write does not queue it;
    /// once queued, the write is the group's.
    func write<Value: Sendable>(deadline: WriteDeadline?, _ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            let write = Write(
                run: { db in
                    let value = try body(db)
                    return { continuation.resume(returning: value) }
                },
                fail: { continuation.resume(throwing: $0) }, deadline: deadline)
            let starts = state.withLock { state in
                state.queued.append(write)
                defer { state.isWriting = true }
                return !state.isWriting
            }
            if starts { scheduleGroup() }
        }
    }

    /// How many groups have committed and how many writes they held.
    package var committed: (groups: Int, writes: Int) { counts.withLock { $0 } }

    /// How many writes wait for a group to take them.
    package var queuedCount: Int { state.withLock { $0.queued.count } }

    private func scheduleGroup() {
        pool.asyncWriteWithoutTransaction { db in self.runGroup(db) }
    }

    /// On the writer: runs the queued writes in one transaction, taking those that queue meanwhile
    /// within the group's bounds, commits it, answers them, and schedules the next group if writes
    /// are left. A write whose deadline passed after it ran makes the group roll back and run again
    /// without it.
    private func runGroup(_ db: Database) {
        var writes = state.withLock { $0.queued.popFirst() }.map { [$0] } ?? []
        var expired: [Int: any Error] = [:]
        var takesMore = true
        while !writes.isEmpty {
            do {
                let (done, failures) = try commit(&writes, takingMore: takesMore, skipping: expired, db)
                counts.withLock { $0 = ($0.groups + 1, $0.writes + done.count) }
                for (index, write) in writes.enumerated() {
                    if let acknowledge = done[index] { acknowledge() } else { write.fail(failures[index] ?? expired[index]!) }
                }
                break
            } catch let passed as Expired {
                expired.merge(passed.errors) { first, _ in first }
                takesMore = false
            } catch {
                for (index, write) in writes.enumerated() { write.fail(expired[index] ?? error) }
                break
            }
        }
        let more = state.withLock { state in
            state.isWriting = !state.queued.isEmpty
            return state.isWriting
        }
        if more { scheduleGroup() }
    }

    /// In one transaction, runs `writes` but those `skipping`, each in a savepoint, and then, when
    /// `takingMore`, the writes that queue meanwhile (added to `writes`) within the group's bounds;
    /// commits it, and answers what acknowledges each write that ran and the errors of those that
    /// failed. Throws ``Expired`` (nothing committed) when a write's deadline passed before the
    /// commit, or the error that ended the transaction.
    private func commit(_ writes: inout [Write], takingMore: Bool, skipping: [Int: any Error], _ db: Database) throws -> (
        done: [Int: @Sendable () -> Void], failures: [Int: any Error]
    ) {
        var done: [Int: @Sendable () -> Void] = [:]
        var failures: [Int: any Error] = [:]
        var afterCommit: [@Sendable () -> Void] = []
        let start = ContinuousClock.now
        try db.inCachedImmediateTransaction {
            var index = 0
            while index < writes.count || takingMore && takeNext(into: &writes, since: start) {
                defer { index += 1 }
                guard skipping[index] == nil else { continue }
                let actions = CommitActions()
                do {
                    var acknowledge: (@Sendable () -> Void)?
                    try CommitActions.$current.withValue(actions) {
                        try db.inCachedSavepoint { acknowledge = try writes[index].run(db) }
                    }
                    done[index] = acknowledge
                    afterCommit += actions.list
                } catch {
                    // An error that ended the whole transaction fails the whole group.
                    guard db.isInsideTransaction else { throw error }
                    failures[index] = error
                }
            }
            var expired: [Int: any Error] = [:]
            for index in done.keys {
                do { try writes[index].deadline?.check() } catch { expired[index] = error }
            }
            guard expired.isEmpty else { throw Expired(errors: expired) }
        }
        for action in afterCommit { action() }
        return (done, failures)
    }

    /// Adds the next queued write to `writes`, if the group begun at `start` may take one more.
    private func takeNext(into writes: inout [Write], since start: ContinuousClock.Instant) -> Bool {
        guard writes.count < Self.maximumWrites, ContinuousClock.now - start < Self.maximumDuration,
            let next = state.withLock({ $0.queued.popFirst() })
        else { return false }
        writes.append(next)
        return true
    }
}

/// A first-in, first-out queue whose pops cost no copy of what is left.
private struct WriteQueue<Element> {
    private var elements: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == elements.count }
    var count: Int { elements.count - head }

    mutating func append(_ element: Element) {
        elements.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let first = elements[head]
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return first
    }
}
