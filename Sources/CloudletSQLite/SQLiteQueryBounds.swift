import Cloudlet

/// How large a query may be, measured by what it compiles to: what SQLite must parse, plan and
/// run for every row scales with the branches and conditions of the statement, not with the bytes
/// of the request. Each bound is checked as the query compiles, so a query past one answers 102
/// before SQLite sees any of it; real apps stay far below them (an `$or` of a few dozen branches).
struct SQLiteQueryBounds {
    /// How deep `$or`, `$and` and inner queries (`$inQuery`, `$select`, …) may nest in one another.
    static let maximumNesting = 8
    /// The most `$or` and `$and` branches in one query, at every depth together.
    static let maximumBranches = 500
    /// The most conditions in one query, inner queries included: each field's equality or
    /// operator (`$in`, `$gt`, `$regex`, `$inQuery`, …) counts one.
    static let maximumConditions = 1_000
    /// The most values one query compares with: each element of `$in`, `$nin` and `$all` lists
    /// and every other compared value.
    static let maximumValues = 30_000
    /// The most bytes of SQL one query compiles to.
    static let maximumSQLBytes = 384 << 10
    /// The most values one statement may bind (SQLite allows 32,766).
    static let maximumArguments = 30_000

    private var branches = 0
    private var conditions = 0
    private var values = 0

    /// Counts `count` more `$or`/`$and` branches.
    mutating func addBranches(_ count: Int) throws {
        branches += count
        guard branches <= Self.maximumBranches else {
            throw ParseError.invalidQuery("the query has more than \(Self.maximumBranches) $or and $and branches")
        }
    }

    /// Counts one more condition, comparing with `values` values.
    mutating func addCondition(values count: Int = 1) throws {
        conditions += 1
        values += count
        guard conditions <= Self.maximumConditions else {
            throw ParseError.invalidQuery("the query has more than \(Self.maximumConditions) conditions")
        }
        guard values <= Self.maximumValues else {
            throw ParseError.invalidQuery("the query compares with more than \(Self.maximumValues) values")
        }
    }

    /// Checks the finished statement's text.
    static func check(sql: String) throws {
        guard sql.utf8.count <= maximumSQLBytes else {
            throw ParseError.invalidQuery("the query is too large: it compiles to more than \(maximumSQLBytes) bytes of SQL")
        }
        guard sql.utf8.count(where: { $0 == UInt8(ascii: "?") }) <= maximumArguments else {
            throw ParseError.invalidQuery("the query is too large: it binds more than \(maximumArguments) values")
        }
    }
}
