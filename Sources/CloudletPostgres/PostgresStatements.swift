import PostgresNIO

extension PostgresConnection {
    /// Runs `sql` with `binds`; answers its rows.
    @discardableResult
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), logger: Logger) async throws -> PostgresRowSequence {
        try await query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    /// Runs `sql` with `binds`; answers how many rows it gave.
    func count(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), logger: Logger) async throws -> Int {
        var rows = 0
        for try await _ in try await run(sql, binds, logger: logger) { rows += 1 }
        return rows
    }
}

extension PostgresBindings {
    /// Bindings of `values`, in order.
    init(_ values: any PostgresDynamicTypeEncodable...) {
        self.init()
        for value in values { append(value) }
    }
}
