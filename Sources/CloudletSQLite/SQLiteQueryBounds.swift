import CloudletRuntime

/// The ``QueryBounds`` of a finished SQLite statement, whose bound values are its `?` marks.
enum SQLiteQueryBounds {
    /// Checks the statement `sql`: its length and how many values it binds.
    static func check(sql: String) throws {
        try QueryBounds.check(sql: sql, arguments: sql.utf8.count(where: { $0 == UInt8(ascii: "?") }))
    }
}
