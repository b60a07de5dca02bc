import CloudletRuntime
import GRDB
import ServiceLifecycle

/// The upkeep of one app's database beside its requests: checkpoints of its log
/// (``SQLiteCheckpointer``) and refreshes of its planner statistics (``SQLiteStatistics``), each
/// asked for by the writer's commits. The supervisor runs it for as long as it serves the app.
package struct SQLiteMaintenance: Service {
    let database: SQLiteAppDatabase

    /// Runs checkpoints and refreshes until graceful shutdown or cancellation of the calling task;
    /// a refresh under way ends first.
    package func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await refreshStatistics() }
            await database.checkpointer.run()
            group.cancelAll()
        }
    }

    /// Refreshes the statistics each time they are due, on the app's writer, one at a time.
    private func refreshStatistics() async {
        let statistics = database.statistics
        while true {
            await statistics.due.wait()
            guard !Task.isCancelled else { return }
            // A refresh that fails (the disk is full, say) is tried again at the next due one.
            let analyzed = (try? await database.writeAlone { db in try statistics.refresh(db) }) ?? false
            // A connection reads the statistics as it opens: the readers open now would keep the old.
            if analyzed { database.pool.invalidateReadOnlyConnections() }
        }
    }
}
