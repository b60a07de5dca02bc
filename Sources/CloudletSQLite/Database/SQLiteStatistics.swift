import CloudletRuntime
import GRDB
import Synchronization

/// Keeps the statistics SQLite's planner weighs the indexes of `objects` by true as an app's data
/// grows, so that an index made through `/schemas` serves `order` and `$in` whether its class was
/// empty when it was made or has grown tenfold since.
///
/// The writer's log hook (see ``SQLiteCheckpointer``) counts the pages each commit writes; once
/// they reach a quarter of the database's pages at the last refresh (at least ``minimumPages``),
/// the app's maintenance (``SQLiteMaintenance``) runs one `ANALYZE objects` on the app's writer,
/// and only where an index made through `/schemas` exists. Each refresh reads each index of
/// `objects` once, in full: a sample (SQLite's `analysis_limit`, which `PRAGMA optimize` applies)
/// reads the first rows of each index, which are the first classes' only, and misjudges every other
/// class. A refresh thus costs at most a few pages read for each page the app has written since
/// the last: an app's statistics cost in proportion to its own writes, on its own writer, one
/// refresh at a time.
package final class SQLiteStatistics: Sendable {
    /// The fewest pages (1 MiB) the app's commits write between two refreshes.
    static let minimumPages = 256
    /// The share of the database's pages, 1 in this many, that its commits write between two refreshes.
    static let growthDivisor = 4

    private struct State {
        /// Pages written to the log since the last refresh.
        var written = 0
        /// The log's size after the last commit.
        var logPages: Int32 = 0
        /// The pages written that make the next refresh due.
        var dueAt = SQLiteStatistics.minimumPages
        var isDue = false
        var completed = 0
    }

    private let state = Mutex(State())
    /// Signalled once a refresh is due.
    let due = WakeSignal()

    init() {}

    /// Refreshes run so far.
    package var completedRefreshes: Int { state.withLock { $0.completed } }

    /// Called by the writer after each commit with the log's size in pages.
    func logged(_ pages: Int32) {
        let becameDue = state.withLock { state -> Bool in
            // A log smaller than after the last commit has restarted: all its pages are new.
            state.written += Int(pages >= state.logPages ? pages - state.logPages : pages)
            state.logPages = pages
            guard !state.isDue, state.written >= state.dueAt else { return false }
            state.isDue = true
            return true
        }
        if becameDue { due.signal() }
    }

    /// Refreshes the statistics in the transaction of `db`, the app's writer's, if an index made
    /// through `/schemas` exists (answers whether it did), and counts the pages to the next refresh
    /// afresh.
    func refresh(_ db: Database) throws -> Bool {
        let hasSchemaIndexes =
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = 'objects' AND name LIKE 'schema\\_%' ESCAPE '\\'")
            == true
        if hasSchemaIndexes { try Self.analyzeObjects(db) }
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        state.withLock { state in
            state.written = 0
            state.isDue = false
            state.dueAt = max(Self.minimumPages, pages / Self.growthDivisor)
            state.completed += 1
        }
        return hasSchemaIndexes
    }

    /// Refreshes the statistics SQLite's planner weighs the indexes of `objects` by, so that it
    /// picks an index made through `/schemas` where it serves a query better than the class's own.
    /// `ANALYZE` reads each index of `objects` once, less than making an index costs (which
    /// computes every row's values).
    static func analyzeObjects(_ db: Database) throws {
        try db.execute(sql: "ANALYZE objects")
    }
}
