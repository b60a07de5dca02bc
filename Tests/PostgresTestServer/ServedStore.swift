/// The store a test of a whole server (a process, or one built in the test) keeps its apps' data
/// in: SQLite files in its data folder, or a new database of its own on the tests' PostgreSQL
/// server, as `serve --database` keeps it. A test body runs on each with
/// `@Test(arguments: ServedStore.allCases)`.
public enum ServedStore: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// The URL of a new, empty database on the tests' server for the PostgreSQL store; nil for SQLite.
    public func newDatabase() async throws -> String? {
        switch self {
        case .sqlite: nil
        case .postgres: try await PostgresTestServer.shared.newDatabase()
        }
    }
}
