import Cloudlet
import CloudletRuntime
import GRDB
import Synchronization

/// A test of a row's text that a statement runs through `cloudlet_regexp`: a `$regex` pattern
/// (``RegexProgram``) or the word-by-word check of a `$text` search (``TextSearch``). It spends
/// `steps` of the statement's budget as it works and throws once they run out.
protocol SQLiteRowMatcher: Sendable {
    func matches(_ text: String, steps: inout Int) throws -> Bool
}

extension RegexProgram: SQLiteRowMatcher {}

/// The `cloudlet_regexp(matcher, text)` SQL function behind Parse's `$regex` and the checks of `$text`.
///
/// A query's patterns are compiled (``RegexProgram``, linear time) before its statement runs and
/// registered for that statement only, as are its `$text` checks, under handles that the SQL binds
/// in their place; all of them share one budget of match steps, so that no query can hold a read
/// connection for long. Past the budget the statement stops, and the query answers 102.
enum SQLiteRegex {
    /// The patterns of one statement, by handle, and the steps they have left.
    final class Patterns: Sendable {
        let programs: [Int64: any SQLiteRowMatcher]
        let stepsLeft: Mutex<Int>

        init(programs: [Int64: any SQLiteRowMatcher], steps: Int) {
            self.programs = programs
            self.stepsLeft = Mutex(steps)
        }

        var isExhausted: Bool { stepsLeft.withLock { $0 <= 0 } }
    }

    private static let registered = Mutex<[Int64: Patterns]>([:])
    private static let lastHandle = Atomic<Int64>(0)

    /// A handle for a pattern of a statement being built.
    static func newHandle() -> Int64 {
        lastHandle.add(1, ordering: .relaxed).newValue
    }

    static let function = DatabaseFunction("cloudlet_regexp", argumentCount: 2, pure: true) { values in
        guard let handle = Int64.fromDatabaseValue(values[0]), let text = String.fromDatabaseValue(values[1]),
            let patterns = registered.withLock({ $0[handle] }), let program = patterns.programs[handle]
        else { return false }
        var steps = patterns.stepsLeft.withLock { $0 }
        let before = steps
        defer { patterns.stepsLeft.withLock { $0 -= before - steps } }
        return try program.matches(text, steps: &steps)
    }

    /// Runs `body` (which steps the statement holding `programs`) with the programs registered under
    /// their handles and `steps` to share; a statement stopped for lack of steps throws 102.
    static func running<Result>(_ programs: [Int64: any SQLiteRowMatcher], steps: Int, _ body: () throws -> Result) throws -> Result {
        guard !programs.isEmpty else { return try body() }
        let patterns = Patterns(programs: programs, steps: steps)
        registered.withLock { entries in for handle in programs.keys { entries[handle] = patterns } }
        defer { registered.withLock { entries in for handle in programs.keys { entries[handle] = nil } } }
        do {
            return try body()
        } catch where patterns.isExhausted {
            throw ParseError.invalidQuery("$regex or $text needs more work than one query may do; use a simpler pattern or search, or narrow the query")
        }
    }
}
