import Cloudlet
import CloudletRuntime
import GRDB

/// The tests of a field's text that run in Swift inside the statement (``SQLiteRegex``): `$regex`
/// patterns, and the checks of `$text` searches the index does not decide alone.
extension SQLiteQueryBuilder {
    /// `$regex` with the letters of its `$options` (`imsx`), compiled before the statement runs.
    mutating func regex(_ field: QueryField, _ pattern: String, options: String) throws -> String {
        let program: RegexProgram
        do { program = try RegexProgram(pattern: pattern, options: options) } catch { throw ParseError.invalidQuery(error.message) }
        return matching(field, with: program)
    }

    /// `matcher` run on the field's value, only on rows the reader may read (so that no row it may
    /// not see spends the query's budget of match steps).
    mutating func matching(_ field: QueryField, with matcher: any SQLiteRowMatcher) -> String {
        let handle = SQLiteRegex.newHandle()
        patterns[handle] = matcher
        guard let readable else {
            arguments += [handle]
            return "cloudlet_regexp(?, \(field.value(&arguments)))"
        }
        arguments += readable.arguments
        arguments += [handle]
        return "(CASE WHEN \(readable.sql) THEN cloudlet_regexp(?, \(field.value(&arguments))) ELSE 0 END)"
    }
}
