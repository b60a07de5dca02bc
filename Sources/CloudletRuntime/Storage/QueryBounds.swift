import Cloudlet

/// How large a query may be, measured by what it compiles to: what a store's database must parse,
/// plan and run for every row scales with the branches and conditions of the statement, not with
/// the bytes of the request. Each bound is checked as the query compiles, so a query past one
/// answers 102 before the database sees any of it; real apps stay far below them (an `$or` of a
/// few dozen branches). Both stores' compilers count with the same bounds.
package struct QueryBounds {
    /// How deep `$or`, `$and` and inner queries (`$inQuery`, `$select`, …) may nest in one another.
    package static let maximumNesting = 8
    /// The most `$or` and `$and` branches in one query, at every depth together.
    package static let maximumBranches = 500
    /// The most conditions in one query, inner queries included: each field's equality or
    /// operator (`$in`, `$gt`, `$regex`, `$inQuery`, …) counts one.
    package static let maximumConditions = 1_000
    /// The most values one query compares with: each element of `$in`, `$nin` and `$all` lists
    /// and every other compared value.
    package static let maximumValues = 30_000
    /// The most bytes of SQL one query compiles to.
    package static let maximumSQLBytes = 384 << 10
    /// The most values one statement may bind (SQLite allows 32,766, PostgreSQL 65,535).
    package static let maximumArguments = 30_000

    package init() {}

    private var branches = 0
    private var conditions = 0
    private var values = 0

    /// Counts `count` more `$or`/`$and` branches.
    package mutating func addBranches(_ count: Int) throws {
        branches += count
        guard branches <= Self.maximumBranches else {
            throw ParseError.invalidQuery("the query has more than \(Self.maximumBranches) $or and $and branches")
        }
    }

    /// Counts one more condition, comparing with `values` values.
    package mutating func addCondition(values count: Int = 1) throws {
        conditions += 1
        values += count
        guard conditions <= Self.maximumConditions else {
            throw ParseError.invalidQuery("the query has more than \(Self.maximumConditions) conditions")
        }
        guard values <= Self.maximumValues else {
            throw ParseError.invalidQuery("the query compares with more than \(Self.maximumValues) values")
        }
    }

    /// Checks the finished statement: its text, and the values it binds (`arguments`).
    package static func check(sql: String, arguments: Int) throws {
        guard sql.utf8.count <= maximumSQLBytes else {
            throw ParseError.invalidQuery("the query is too large: it compiles to more than \(maximumSQLBytes) bytes of SQL")
        }
        guard arguments <= maximumArguments else {
            throw ParseError.invalidQuery("the query is too large: it binds more than \(maximumArguments) values")
        }
    }

    /// The branches of an `$or` or `$and` (`key`) whose value is `value`, counted; 102 unless
    /// they are a non-empty array of queries.
    package mutating func branches(of key: String, _ value: ParseValue) throws -> [[String: ParseValue]] {
        guard let branches = value.arrayValue, !branches.isEmpty else {
            throw ParseError.invalidQuery("\(key) needs a non-empty array of queries")
        }
        try addBranches(branches.count)
        return try branches.map { branch in
            guard let members = branch.objectValue else { throw ParseError.invalidQuery("\(key) needs queries") }
            return members
        }
    }

    /// Throws 102 when `depth` is past ``maximumNesting``.
    package static func checkNesting(_ depth: Int) throws {
        guard depth < maximumNesting else {
            throw ParseError.invalidQuery("$or, $and and inner queries nested more than \(maximumNesting) deep")
        }
    }
}
