import CCloudletSQLite
import GRDBSQLite

/// SQLite settings that hold for the whole process, applied before its first database opens.
///
/// By default SQLite counts every allocation in process-wide statistics, under one mutex that
/// every connection of every app takes on each `malloc` and `free`. Under load, a thread holding
/// it can be preempted, and then a save of another app waits a whole time slice for it: one app's
/// traffic reaching another's latency. Cloudlet reads none of those statistics, so it turns them off.
/// Cloudlet applies this before it opens a database; a program that embeds it and opens SQLite
/// databases of its own first should call ``apply()`` before them.
public enum SQLiteProcessSettings {
    /// Whether SQLite keeps no memory statistics in this process: true once applied, false if
    /// SQLite had already started (another library opened a database first), when it cannot change.
    public static let memoryStatisticsAreOff: Bool = cloudlet_sqlite_disable_memory_statistics() == SQLITE_OK

    /// Applies the settings, if SQLite has not started yet. Call before opening a database.
    public static func apply() {
        _ = memoryStatisticsAreOff
    }

    /// The bytes SQLite has allocated and not freed, as its statistics count them: 0 for ever once
    /// they are off.
    static var memoryInUse: Int64 { sqlite3_memory_used() }
}
