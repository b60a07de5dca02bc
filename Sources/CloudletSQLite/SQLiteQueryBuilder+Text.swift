import Cloudlet
import CloudletRuntime
import GRDB

/// Parse's `$text` operator over the app's full-text index (``SQLiteTextIndex``), and the `$score`
/// a query may sort by and ask for in its `keys`.
extension SQLiteQueryBuilder {
    /// The `$text` constraint of a query, as the statement runs it.
    struct TextConstraint {
        let className: String
        let field: String
        /// The FTS5 query; nil when the search can match nothing.
        let indexQuery: String?
    }

    /// `$text` on `field`: the field's words match the search. The FTS5 index finds the rows; when it
    /// cannot decide alone (a search sensitive to case or diacritics, or in a language other than
    /// English, whose words compare whole rather than by English stems), the search checks each row
    /// it found, spending the query's budget of match steps (``SQLiteRegex``). One `$text` per
    /// query, on a top-level field of a searchable class.
    mutating func textClause(_ field: QueryField, _ operand: ParseValue) throws -> String {
        guard !field.isColumn, !field.path.contains(".") else {
            throw ParseError.invalidQuery("$text needs a top-level String field, not \(field.path)")
        }
        guard SQLiteTextIndex.isSearchable(className) else { throw ParseError.invalidQuery("$text cannot search class \(className)") }
        guard text == nil else { throw ParseError.invalidQuery("a query may hold only one $text") }
        let search = try TextSearch(operand)
        let constraint = TextConstraint(className: className, field: field.path, indexQuery: search.indexQuery)
        text = constraint
        searches.append(constraint)
        guard let indexQuery = search.indexQuery else { return "0" }
        arguments += [indexQuery, className, field.path]
        var clause = "id IN (\(Self.indexRows(selecting: "found.id")))"
        if !search.isIndexExact { clause += " AND " + matching(field, with: search) }
        return "(\(clause))"
    }

    /// Whether an `order` key sorts by relevance: Parse's `$score` (or `-$score`), always most
    /// relevant first.
    static func isScoreKey(_ key: String) -> Bool {
        key == "$score" || key == "-$score"
    }

    /// Whether the query needs the relevance of each row: its order or its `keys` name `$score`.
    static func needsScore(_ query: ParseQuery) -> Bool {
        query.order.contains(where: isScoreKey) || query.keys?.contains("$score") == true
    }

    /// The index rows an FTS5 query (bound first), a class and a field (bound after it) find, as
    /// `selecting` columns of `text_index` and `text_fields AS found`: the index scanned once, each
    /// row it finds looked up by its `doc`.
    private static func indexRows(selecting columns: String) -> String {
        """
        SELECT \(columns) FROM text_index CROSS JOIN text_fields AS found ON found.doc = text_index.rowid
            WHERE text_index MATCH ? AND found.class = ? AND found.field = ?
        """
    }

    /// A join that gives each row of `objects` its relevance to the query's `$text` as
    /// `hits.text_score` (FTS5's BM25, negated so that higher is more relevant, as Parse's `score`);
    /// NULL for a row the search does not match. Every relevance comes from one scan of the index.
    /// Throws 102 if the query has no `$text`.
    func textScoreJoin(_ arguments: inout StatementArguments) throws -> String {
        guard let text else { throw ParseError.invalidQuery("$score needs a $text constraint in the query") }
        // An empty FTS5 phrase finds nothing, as a search of negations alone.
        arguments += [text.indexQuery ?? "\"\"", text.className, text.field]
        let scores = Self.indexRows(selecting: "found.id AS hit_id, -bm25(text_index) AS text_score")
        return " LEFT JOIN (\(scores)) AS hits ON hits.hit_id = objects.id"
    }

    /// Throws 102 when one of `searches` names a field its class stores with a type other than
    /// String (a field never written matches nothing).
    static func checkTextFields(_ searches: [TextConstraint], _ db: Database) throws {
        for text in searches {
            let type = try String.fetchOne(
                db.cachedStatement(sql: "SELECT type FROM fields WHERE class = ? AND field = ?"), arguments: [text.className, text.field])
            if let type, type != "String" {
                throw ParseError.invalidQuery("$text needs a String field; \(text.field) holds \(type) values")
            }
        }
    }
}
