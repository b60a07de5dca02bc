import GRDB

/// Transactions and savepoints begun and ended by statements prepared once per connection. GRDB's
/// `inTransaction` and `inSavepoint` prepare `BEGIN`, `SAVEPOINT`, `RELEASE` and `COMMIT` again on
/// every call, which on the save path cost more than the object's own `INSERT`; these keep them
/// in the connection's statement cache instead, with the same rollbacks on error.
extension Database {
    /// Runs `body` in an immediate transaction and commits it; rolls it back if `body` or the
    /// commit throws, and rethrows.
    func inCachedImmediateTransaction<Value>(_ body: () throws -> Value) throws -> Value {
        try inCached(begin: "BEGIN IMMEDIATE TRANSACTION", end: "COMMIT TRANSACTION", undo: ["ROLLBACK TRANSACTION"], body)
    }

    /// Runs `body` in a savepoint of the current transaction and releases it; rolls back to it
    /// (and releases it) if `body` throws, and rethrows: the transaction goes on without what
    /// `body` wrote.
    func inCachedSavepoint<Value>(_ body: () throws -> Value) throws -> Value {
        try inCached(
            begin: "SAVEPOINT write", end: "RELEASE SAVEPOINT write",
            undo: ["ROLLBACK TRANSACTION TO SAVEPOINT write", "RELEASE SAVEPOINT write"], body)
    }

    /// Runs `begin`, `body`, then `end`; if `body` or `end` throws, runs `undo` (unless an error
    /// such as SQLITE_FULL already ended the transaction) and rethrows.
    private func inCached<Value>(begin: String, end: String, undo: [String], _ body: () throws -> Value) throws -> Value {
        try cachedStatement(sql: begin).execute()
        do {
            let value = try body()
            try cachedStatement(sql: end).execute()
            return value
        } catch {
            if isInsideTransaction { for sql in undo { try? cachedStatement(sql: sql).execute() } }
            throw error
        }
    }
}
