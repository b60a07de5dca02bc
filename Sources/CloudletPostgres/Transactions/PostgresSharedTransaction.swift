import CloudletRuntime
import PostgresNIO

/// A ``SharedTransaction`` over an app's PostgreSQL schema: the writes its members make through
/// ``PostgresWriter/write(_:)`` are held in memory, each with the continuation of the operation
/// that waits for it, and ``commit()`` runs them in order in one PostgreSQL transaction, which
/// commits them all or none. A connection is taken for the commit alone, never while an operation
/// prepares or its hooks run.
final class PostgresSharedTransaction: SharedTransaction {
    /// A write as the writer gives it: its result, and what runs once it has committed.
    typealias Write<Result> = @Sendable (PostgresConnection) async throws -> (Result, PostgresWriter.AfterCommit)
    /// A held write, run on the commit's connection.
    typealias Run = @Sendable (PostgresConnection) async throws -> @Sendable () -> Void

    let writer: PostgresWriter
    let deadline: WriteDeadline
    private let writes = HeldWrites<Run>()

    init(writer: PostgresWriter, deadline: WriteDeadline) {
        self.writer = writer
        self.deadline = deadline
    }

    /// Whether the writes of `other` join this transaction: those of the same app on the same database.
    func joins(_ other: PostgresWriter) -> Bool {
        other.database === writer.database && other.schema.name == writer.schema.name
    }

    /// Joins `write` to the transaction for the member whose write it is (see ``HeldWrites/join(_:held:)``).
    func join<Result: Sendable>(_ write: @escaping Write<Result>, held: @Sendable () -> Void) async throws -> HeldWriteOutcome<Result> {
        try await writes.join({ resume in
            { connection in
                let (result, afterCommit) = try await write(connection)
                return {
                    for action in afterCommit { action() }
                    resume(result)
                }
            }
        }, held: held)
    }

    func commit() async throws {
        let deadline = deadline
        try await writes.commit { held in
            try deadline.check()
            return try await writer.database.transaction { connection in
                var resumes: [@Sendable () -> Void] = []
                for (index, run) in held.enumerated() {
                    do { resumes.append(try await run(connection)) } catch { throw HeldWriteFailed(index: index, error: error) }
                }
                try deadline.check()
                return resumes
            }
        }
    }

    func rollBack() {
        writes.rollBack()
    }
}

extension PostgresObjectStore {
    /// A new transaction that the writes of several operations join — of this app's objects and
    /// queued work — to commit by `deadline` (see ``SharedTransaction``).
    public func sharedTransaction(deadline: WriteDeadline) -> any SharedTransaction {
        PostgresSharedTransaction(writer: writer, deadline: deadline)
    }
}
