import Cloudlet
import CloudletRuntime

/// Parse's `$text` operator over `tsvector`s made as each statement runs (Parse Server on
/// PostgreSQL makes them so too, with no index), and the `$score` a query may sort by and ask for in
/// its `keys`: ranked by `ts_rank`.
///
/// The search is read as on SQLite (``TextSearch``) and matches the same way: any of its words, or
/// all of its phrases, and none of its negations. The text is split into words of letters and
/// digits first, as SQLite's tokenizer splits it. A search folded in case and diacritics, in
/// English, compares English stems: `to_tsvector` against a `tsquery` made word by word with
/// `phraseto_tsquery`, in the schema's `english_words` configuration (PostgreSQL's English one
/// without its stop words, which SQLite's index does not drop). Any other search compares whole
/// words, folded as its flags say, as SQLite's word-by-word check does. Diacritics are removed by
/// decomposing the text (`normalize`) and dropping its combining marks, which needs no extension.
extension PostgresQueryCompiler {
    /// The text search configuration of the schema's `english_words` change.
    static let textConfiguration = "english_words"

    /// The change that makes ``textConfiguration`` in a schema: the English snowball stemmer without stop words.
    static let textMigration = PostgresMigrations.Migration(
        name: "text_search",
        statements: [
            "CREATE TEXT SEARCH DICTIONARY {schema}.\(textConfiguration) (TEMPLATE = snowball, Language = english)",
            "CREATE TEXT SEARCH CONFIGURATION {schema}.\(textConfiguration) (COPY = pg_catalog.english)",
            "ALTER TEXT SEARCH CONFIGURATION {schema}.\(textConfiguration) ALTER MAPPING REPLACE english_stem WITH {schema}.\(textConfiguration)",
        ])

    /// `$text` on `field`: the field is a String whose words match the search. One `$text` per
    /// query, on a top-level field of a searchable class.
    mutating func textClause(_ field: PostgresField, _ operand: ParseValue) throws -> String {
        guard field.column == nil, !field.path.contains(".") else {
            throw ParseError.invalidQuery("$text needs a top-level String field, not \(field.path)")
        }
        guard TextSearch.isSearchable(className) else { throw ParseError.invalidQuery("$text cannot search class \(className)") }
        guard text == nil else { throw ParseError.invalidQuery("a query may hold only one $text") }
        let search = try TextSearch(operand)
        matchesPatterns = true
        textFields.append((className, field.path))
        let configuration = bind(textSearchConfiguration) + "::regconfig"
        let string = "(\(field.value) #>> '{}')"
        let vector = "to_tsvector(\(configuration), \(Self.words(of: Self.unaccented(string))))"
        let stems = { (tokens: [String]) in "phraseto_tsquery(\(configuration), \(Self.unaccented(self.bind(tokens.joined(separator: " ")))))" }
        let required = search.phrases.isEmpty ? search.words.map { [$0] } : search.phrases
        guard !required.isEmpty else {
            text = (vector, "''::tsquery")
            return "false"
        }
        let query = Self.joined(required.map(stems), search.phrases.isEmpty ? "||" : "&&")
        // Beside phrases, the words decide nothing but rank, as on SQLite: the score counts them too.
        let ranked = search.phrases.isEmpty || search.words.isEmpty ? query : "(\(query) || \(Self.joined(search.words.map { [$0] }.map(stems), "||")))"
        text = (vector, ranked)
        let match: String
        if !search.caseSensitive, !search.diacriticSensitive, search.stemsEnglish {
            match = "\(vector) @@ \(query)"
                + (search.excluded.isEmpty ? "" : " AND NOT (\(vector) @@ \(Self.joined(search.excluded.map(stems), "||")))")
        } else {
            let fold = { (text: String) in
                let cased = search.caseSensitive ? text : "lower(\(text))"
                return search.diacriticSensitive ? cased : Self.unaccented(cased)
            }
            let words = "(' ' || \(Self.words(of: fold(string))) || ' ')"
            let contains = { (tokens: [String]) in "strpos(\(words), ' ' || \(fold(self.bind(tokens.joined(separator: " ")))) || ' ') > 0" }
            let found = Self.joined(required.map(contains), search.phrases.isEmpty ? "OR" : "AND")
            match = found + (search.excluded.isEmpty ? "" : " AND NOT \(Self.joined(search.excluded.map(contains), "OR"))")
        }
        return "(jsonb_typeof(\(field.value)) = 'string' AND \(match))"
    }

    /// The relevance of a row to the query's `$text` (higher is more relevant); 102 if the query has none.
    func textScore() throws -> String {
        guard let text else { throw ParseError.invalidQuery("$score needs a $text constraint in the query") }
        return "ts_rank(\(text.vector), \(text.query))::float8"
    }

    /// The words of `text` (letters and digits) separated by single spaces, as SQLite's tokenizer splits them.
    private static func words(of text: String) -> String {
        "regexp_replace(\(text), '[^[:alnum:]]+', ' ', 'g')"
    }

    /// `text` without diacritics: decomposed, its combining marks dropped.
    private static func unaccented(_ text: String) -> String {
        #"regexp_replace(normalize(\#(text), NFD), '[\u0300-\u036f]', '', 'g')"#
    }
}
