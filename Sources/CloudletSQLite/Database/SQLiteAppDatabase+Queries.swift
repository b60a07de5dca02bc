import GRDB
import Synchronization

extension SQLiteAppDatabase {
    /// Runs `body`, which steps the query statement `statement`, on a read connection, as every
    /// statement of a query runs (``SQLiteQueryBuilder/Statement/running(_:steps:_:)``, with the
    /// database's steps per query). A class the statement searches with `$text` for the first time
    /// is indexed first, in a write of its own (``SQLiteTextIndex``).
    func read<Result: Sendable>(
        _ statement: SQLiteQueryBuilder.Statement, _ body: @escaping @Sendable (Database) throws -> Result
    ) async throws -> Result {
        if !statement.searches.isEmpty { try await indexForText(Set(statement.searches.map(\.className))) }
        let steps = regexStepsPerQuery
        return try await pool.read { db in try statement.running(db, steps: steps) { try body(db) } }
    }

    /// Lists the classes of `classes` that the text index does not cover yet, and indexes the
    /// objects they hold, in one write.
    private func indexForText(_ classes: Set<String>) async throws {
        guard !textClasses.cover(classes) else { return }
        let listed = try await writeAlone { db in
            for className in classes.sorted() { try SQLiteTextIndex.startIndexing(className, db) }
            return try SQLiteTextIndex.indexedClasses(db)
        }
        textClasses.know(listed)
    }
}

/// The classes the text index covers, as far as this process has read them: the list only grows,
/// so what it holds is covered (another process may have added more).
final class TextIndexedClasses: Sendable {
    private let classes = Mutex<Set<String>>([])

    /// Whether every class of `wanted` is covered.
    func cover(_ wanted: Set<String>) -> Bool {
        classes.withLock { wanted.isSubset(of: $0) }
    }

    /// The classes listed as covered, as just read.
    func know(_ listed: Set<String>) {
        classes.withLock { $0.formUnion(listed) }
    }
}
