import Cloudlet
import CloudletRuntime
import PostgresNIO

/// The one place the writes of an app's PostgreSQL stores (its objects, its queued work) open their
/// transactions: each write is one transaction, checked against the current ``WriteDeadline``
/// before it starts and before it commits; in the task of a member of one of this app's
/// ``PostgresSharedTransaction``s, it joins that transaction instead, and runs at its commit.
struct PostgresWriter: Sendable {
    /// What a write's body asks to run once its transaction has committed (a cache brought up to date).
    typealias AfterCommit = [@Sendable () -> Void]

    let database: PostgresDatabase
    let schema: PostgresAppSchema

    /// Runs `body` in one transaction (the shared one its task is a member of, if any); once that
    /// commits, what `body` asked to run after the commit runs. A string holding `\u0000`, which
    /// PostgreSQL's `jsonb` cannot hold, is refused (111), and a write that breaks one of
    /// ``PostgresUniqueValues`` with its Parse error.
    func write<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, inout AfterCommit) async throws -> Result
    ) async throws -> Result {
        let deadline = WriteDeadline.current
        try deadline?.check()
        let checked: PostgresSharedTransaction.Write<Result> = { connection in
            var afterCommit: AfterCommit = []
            let result: Result
            do {
                result = try await body(connection, &afterCommit)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "22P05" {
                throw ParseError(code: 111, message: "a string may not hold \\u0000 on the PostgreSQL store", httpStatus: 400)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw PostgresUniqueValues.error(for: error)
            }
            try deadline?.check()
            return (result, afterCommit)
        }
        if let member = SharedTransactionMember.current, let shared = member.transaction as? PostgresSharedTransaction, shared.joins(self),
            case .committed(let result) = try await shared.join(checked, held: member.held)
        {
            return result
        }
        let (result, afterCommit) = try await database.transaction { connection in try await checked(connection) }
        for action in afterCommit { action() }
        return result
    }
}
