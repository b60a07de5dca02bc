import Dispatch
import GRDB
import GRDBSQLite
import ServiceLifecycle
import Synchronization

/// Copies an app database's write-ahead log back into the database file beside the writer, so that
/// a commit seldom waits for it.
///
/// SQLite's own automatic checkpoint runs inside the commit that takes the log past 1,000 pages: it
/// copies the pages back and flushes the file while every save queued behind that commit waits.
/// Here the writer's log hook only asks for a checkpoint, which this type runs on a connection and
/// a queue of its own (`PASSIVE`: it never blocks the writer or a reader). SQLite starts the log
/// afresh only when a writer begins with every frame already copied back, which a checkpoint
/// beside a busy writer seldom leaves it, so the writer still checkpoints itself once the log
/// passes ``inlinePages``; by then most of the log has been copied back, and that checkpoint has
/// little left to do.
package final class SQLiteCheckpointer: Sendable {
    /// Pages added to the log since the last checkpoint began that start the next one.
    static let backgroundPages: Int32 = 1_000
    /// Pages in the log (64 MiB) past which the writer checkpoints inside its commit, so that the log
    /// restarts, unless the checkpointer is made with another bound.
    static let defaultInlinePages: Int32 = 16_000

    /// Pages in the log past which the writer checkpoints inside its commit.
    let inlinePages: Int32

    private struct State {
        /// The log's size when the last checkpoint was asked for.
        var askedAt: Int32 = 0
        var running = false
        var closed = false
        var completed = 0
    }

    private let path: String
    /// Told the log's size after each commit.
    private let statistics: SQLiteStatistics
    private let queue = DispatchQueue(label: "cloudlet.sqlite-checkpoint")
    /// What the writer's commits and the queue share.
    private let state = Mutex(State())
    /// The checkpoint connection, opened at the first checkpoint; touched on `queue` only, so the
    /// writer never waits for it to open or close.
    nonisolated(unsafe) private var connection: OpaquePointer?

    /// A checkpointer for the database file at `path`, which must exist, whose writer checkpoints
    /// inside its commit once the log passes `inlinePages` pages, and that tells `statistics` the
    /// log's size after each commit.
    init(path: String, inlinePages: Int32 = defaultInlinePages, statistics: SQLiteStatistics) {
        self.path = path
        self.inlinePages = inlinePages
        self.statistics = statistics
    }

    /// Makes `db`, the pool's writer, ask this checkpointer for checkpoints instead of running
    /// SQLite's automatic one. The checkpointer must outlive the connection's commits.
    func attach(to db: Database) {
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, schema, pages in
                let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context!).takeUnretainedValue()
                checkpointer.statistics.logged(pages)
                if pages >= checkpointer.inlinePages {
                    // Busy while the checkpoint beside it runs: the next commit tries again. A
                    // code other than OK would fail the statement whose commit has happened.
                    sqlite3_wal_checkpoint(connection, schema)
                } else {
                    checkpointer.logGrew(to: pages)
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Checkpoints run beside the writer so far.
    var completedCheckpoints: Int { state.withLock { $0.completed } }

    /// Whether the checkpointer is closed: it runs no more checkpoints.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Closes the checkpoint connection, after a checkpoint under way; later requests are ignored.
    func close() {
        queue.sync { closeForGood() }
    }

    /// Runs on `queue`.
    private func closeForGood() {
        state.withLock { $0.closed = true }
        closeConnection()
    }

    /// Called by the writer after each commit with the log's size in pages.
    private func logGrew(to pages: Int32) {
        let start = state.withLock { state -> Bool in
            if pages < state.askedAt { state.askedAt = 0 }  // the log restarted
            guard !state.running, !state.closed, pages - state.askedAt >= Self.backgroundPages else { return false }
            state.running = true
            state.askedAt = pages
            return true
        }
        if start { queue.async { self.checkpoint() } }
    }

    /// Runs on `queue`.
    private func checkpoint() {
        var log: Int32 = -1
        let copied =
            !state.withLock({ $0.closed }) && openConnection()
            && sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, &log, nil) == SQLITE_OK && log >= 0
        // Not copied (the file is gone, say): the next commit asks again, on a new connection.
        if !copied { closeConnection() }
        state.withLock { state in
            state.running = false
            if copied { state.completed += 1 } else { state.askedAt = 0 }
        }
    }

    /// Opens the checkpoint connection if it is not open; runs on `queue`.
    private func openConnection() -> Bool {
        guard connection == nil else { return true }
        // Without SQLITE_OPEN_CREATE: a database deleted meanwhile is not created again. A first
        // read makes the connection find the database in WAL mode; until then a checkpoint on it
        // does nothing.
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            sqlite3_exec(opened, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) == SQLITE_OK
        else {
            sqlite3_close_v2(opened)
            return false
        }
        connection = opened
        return true
    }

    /// Runs on `queue`.
    private func closeConnection() {
        if let connection { sqlite3_close_v2(connection) }
        connection = nil
    }
}

extension SQLiteCheckpointer: Service {
    /// Runs checkpoints beside the writer until graceful shutdown or cancellation of the calling
    /// task, then closes the checkpoint connection (after a checkpoint under way): the supervisor
    /// runs it for as long as it serves the app. Later commits checkpoint inside themselves.
    package func run() async {
        try? await gracefulShutdown()
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            queue.async {
                self.closeForGood()
                closed.resume()
            }
        }
    }
}
