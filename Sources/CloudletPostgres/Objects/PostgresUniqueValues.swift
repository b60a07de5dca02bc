import Cloudlet
import CloudletRuntime
import PostgresNIO

/// The values of system classes that must be unique: a user's username (202), email, case aside
/// (203), and id at each ``AuthProvider`` (208), a role's name (137) and an installation's
/// `installationId` (137). Each is a unique partial index on an expression of the `objects` table,
/// and a write that would break one is refused with its Parse error.
///
/// An index rather than a look-up before the write: where SQLite's one writer makes two sign-ups
/// take turns, two nodes saving the same username at once would both find it free. The index is
/// checked by PostgreSQL as each row is written, and the second of two writes at once waits for the
/// first to commit or roll back, so exactly one succeeds, with no lock of the class held by every
/// user's save and no look-up of its own.
enum PostgresUniqueValues {
    /// One unique value: the index keeping it, its expression over a row of `class`, and the error
    /// of a write that breaks it.
    struct Index {
        let name: String
        let className: String
        let expression: String
        let error: ParseError
    }

    /// The providers whose ids have an index, by name: the providers Cloudlet knows when the
    /// index change was released (a new provider gets its index by a change of its own).
    static let indexedProviders = ["anonymous", "apple", "google"]

    /// Every unique value, in the order a write that breaks several reports them.
    static let indexes: [Index] =
        [
            Index(
                name: "users_unique_username", className: "_User", expression: "data ->> 'username'",
                error: ParseError(code: 202, message: "Account already exists for this username.")),
            Index(
                name: "users_unique_email", className: "_User", expression: "lower(data ->> 'email')",
                error: ParseError(code: 203, message: "Account already exists for this email address.")),
        ]
        + indexedProviders.map { provider in
            Index(name: "users_unique_\(provider)_id", className: "_User", expression: authDataId(provider), error: UserAccounts.alreadyLinked)
        }
        + [
            Index(
                name: "roles_unique_name", className: "_Role", expression: "data ->> 'name'",
                error: ParseError(code: 137, message: "A duplicate value for a field with unique values was provided")),
            Index(
                name: "installations_unique_installation_id", className: "_Installation", expression: InstallationKey.installationId.expression,
                error: ParseError(code: 137, message: "an installation with this installationId exists")),
        ]

    /// The indexes, as a change of the schema. No system class was stored on PostgreSQL before
    /// it, so no existing row can break one.
    static let migration = PostgresMigrations.Migration(
        name: "unique_values",
        statements: indexes.map { index in
            "CREATE UNIQUE INDEX \(index.name) ON {schema}.objects ((\(index.expression))) WHERE class = '\(index.className)'"
        })

    /// The id of a user at `provider` (a name of ``indexedProviders``, never a client's), written
    /// alike in the index and each look-up so that PostgreSQL uses the index.
    static func authDataId(_ provider: String) -> String {
        "data -> 'authData' -> '\(provider)' ->> 'id'"
    }

    /// The Parse error of a write that broke one of ``indexes``; `error` itself for any other.
    static func error(for error: PSQLError) -> any Error {
        guard error.serverInfo?[.sqlState] == "23505", let name = error.serverInfo?[.constraintName],
            let index = indexes.first(where: { $0.name == name })
        else { return error }
        return index.error
    }
}
