extension String {
    /// The string up to its first NUL, as a `text` value holds it: PostgreSQL's `text` refuses NUL,
    /// and the SQLite store, which binds strings as C strings, keeps them so too.
    var postgresText: String {
        guard let nul = firstIndex(of: "\u{0}") else { return self }
        return String(self[..<nul])
    }
}
