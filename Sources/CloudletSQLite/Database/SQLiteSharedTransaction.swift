import CloudletRuntime
import GRDB

/// A ``SharedTransaction`` over an app's database: the writes its members make through
/// ``SQLiteAppDatabase/write(_:)`` are held in memory (``HeldWrites``), and ``commit()`` runs them
/// as one write of a group (``SQLiteWriteGroups``): in one savepoint of the group's transaction,
/// so they commit with the group or roll back together, alone. The writer is held for that alone,
/// never while an operation's hooks run.
final class SQLiteSharedTransaction: SharedTransaction {
    /// A held write, run on the writer.
    typealias Run = @Sendable (Database) throws -> @Sendable () -> Void

    let database: SQLiteAppDatabase
    let deadline: WriteDeadline
    private let writes = HeldWrites<Run>()

    init(database: SQLiteAppDatabase, deadline: WriteDeadline) {
        self.database = database
        self.deadline = deadline
    }

    /// Joins `write` to the transaction for the member whose write it is (see ``HeldWrites/join(_:held:)``).
    func join<Value: Sendable>(_ write: @escaping @Sendable (Database) throws -> Value, held: @Sendable () -> Void) async throws -> HeldWriteOutcome<Value> {
        try await writes.join({ resume in
            { db in
                let value = try write(db)
                return { resume(value) }
            }
        }, held: held)
    }

    func commit() async throws {
        let deadline = deadline
        try await writes.commit { held in
            // One write of a group: the batch's writes roll back together, and alone.
            try await database.writeGroups.write(deadline: deadline) { db in
                var resumes: [@Sendable () -> Void] = []
                for (index, run) in held.enumerated() {
                    do { resumes.append(try run(db)) } catch { throw HeldWriteFailed(index: index, error: error) }
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
