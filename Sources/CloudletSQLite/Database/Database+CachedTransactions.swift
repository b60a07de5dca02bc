import GRDB

/// Transactions and savepoints begun and ended by statements prepared once per connection. GRDB's
/// `inTransaction` and `inSavepoint` prepare `BEGIN`, `SAVEPOINT`, `RELEASE` and `COMMIT` again on
/// every call, which on the save path cost more than the object's own `INSERT`; these keep them
/// in the connection's statement cache instead, with the same rollbacks on error.
extension Database {
    /// Runs `body` in an immediate transaction and commits it; rolls it back if `body` or the
    /// commit throws, and rethrows.
    func inCachedImmediateTransaction<Value>(_ body: () throws -> Value) throws -> Value {
        try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let value = try body()
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            // An error such as SQLITE_FULL may have rolled the transaction back already.
            if isInsideTransaction { try? cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            throw error
        }
    }

    /// Runs `body` in a savepoint of the current transaction and releases it; rolls back to it
    /// (and releases it) if `body` throws, and rethrows: the transaction goes on without what
    /// `body` wrote.
    func inCachedSavepoint<Value>(_ body: () throws -> Value) throws -> Value {
        try cachedStatement(sql: "SAVEPOINT write").execute()
        do {
            let value = try body()
            try cachedStatement(sql: "RELEASE SAVEPOINT write").execute()
            return value
        } catch {
            if isInsideTransaction {
                try? cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT write").execute()
                try? cachedStatement(sql: "RELEASE SAVEPOINT write").execute()
            }
            throw error
        }
    }
}
