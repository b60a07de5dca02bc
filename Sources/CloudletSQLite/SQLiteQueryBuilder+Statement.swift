import Cloudlet
import CloudletRuntime
import GRDB

extension SQLiteQueryBuilder {
    /// One compiled statement: its SQL, what it binds, and what must be checked and registered
    /// before it runs (``running(_:steps:_:)``).
    struct Statement {
        var sql: String
        var arguments: StatementArguments
        /// The compiled `$regex` patterns and `$text` checks, by the handle the SQL binds for each.
        var patterns: [Int64: any SQLiteRowMatcher]
        /// Every `$text` of the statement, inner queries' and pipeline stages' too, whose fields
        /// ``checkTextFields(_:_:)`` checks.
        var searches: [TextConstraint]

        /// Runs `body` (which steps this statement on `db`) as every statement of a query runs: the
        /// fields of its `$text` searches checked first, its matchers registered with `steps` to share.
        func running<Result>(_ db: Database, steps: Int, _ body: () throws -> Result) throws -> Result {
            try SQLiteQueryBuilder.checkTextFields(searches, db)
            return try SQLiteRegex.running(patterns, steps: steps, body)
        }
    }

    /// A builder for a query nested in this builder's statement (an inner query, or a pipeline's
    /// `$match`): the same reader, and the bounds, matchers and `$text` searches of the statement so
    /// far. ``adopt(_:)`` takes back what it used and found; its arguments stay its own.
    func nested() -> SQLiteQueryBuilder {
        var builder = SQLiteQueryBuilder()
        builder.identities = identities
        builder.bounds = bounds
        builder.patterns = patterns
        builder.searches = searches
        return builder
    }

    /// Takes back the bounds used, the matchers compiled and the `$text` searches found by
    /// `builder`, made by ``nested()``.
    mutating func adopt(_ builder: SQLiteQueryBuilder) {
        bounds = builder.bounds
        patterns = builder.patterns
        searches = builder.searches
    }
}
