/// Names written into a statement's text rather than bound, so that SQLite can match the
/// statement's expressions with an index's: a class's partial indexes test `class = 'Name'` and
/// index `json_extract(data, '$.field')`, and a bound `?` never matches a literal.
enum SQLiteLiteral {
    /// `text` as an SQL string literal, each `'` doubled. Class names and field paths reach here
    /// validated (letters, digits, `_` and dots); the doubling keeps any other text a literal too.
    static func text(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'"
    }
}
