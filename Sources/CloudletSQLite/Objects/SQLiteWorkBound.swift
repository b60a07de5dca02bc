import Cloudlet
import GRDB
import GRDBSQLite

/// Bounds the work of one statement by the instructions SQLite's virtual machine runs for it,
/// counted by its progress handler: past the bound the statement is interrupted and answers 102,
/// so that no aggregate holds a read connection for long whatever the class's size.
enum SQLiteWorkBound {
    /// How many instructions run between two counts.
    private static let interval: Int32 = 1_000

    /// What a statement has left, in counts of ``interval`` instructions.
    private final class Allowance {
        var counts: Int
        init(counts: Int) { self.counts = counts }
    }

    /// Runs `body` on `db` with at most `instructions` instructions; past them throws 102 naming `what`.
    static func running<Result>(_ db: Database, instructions: Int, what: String, _ body: () throws -> Result) throws -> Result {
        let allowance = Unmanaged.passRetained(Allowance(counts: max(instructions / Int(interval), 1)))
        sqlite3_progress_handler(db.sqliteConnection, interval, { context in
            let allowance = Unmanaged<Allowance>.fromOpaque(context!).takeUnretainedValue()
            allowance.counts -= 1
            return allowance.counts < 0 ? 1 : 0
        }, allowance.toOpaque())
        defer {
            sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
            allowance.release()
        }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && allowance.takeUnretainedValue().counts < 0 {
            throw ParseError.invalidQuery("\(what) needs more work than one request may do: narrow it with $match or where")
        }
    }
}
