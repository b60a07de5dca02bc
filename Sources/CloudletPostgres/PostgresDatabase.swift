import CloudletRuntime
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// A PostgreSQL database that Cloudlet nodes share, reached through a pool of connections.
///
/// Made from the URL an operator gives (`postgres://user:password@host:5432/database`); TLS as its
/// `sslmode` asks (`disable`, `prefer` — the default, as libpq's — `require`, or `verify-full`,
/// which also checks the server's certificate and name). The pool runs until ``close()``.
/// ```swift
/// let database = try PostgresDatabase(url: "postgres://cloudlet@db.internal/cloudlet?sslmode=require")
/// let queue = try await PostgresWorkQueue(database, schema: PostgresAppSchema(appId: "shop"))
/// ```
public final class PostgresDatabase: Sendable {
    /// The pool of connections.
    package let client: PostgresClient
    package let logger: Logger
    /// What other nodes' writes wake here.
    let notifications = PostgresNotifications()
    /// Each app's feed of the changes its caches must forget (``storeChanges(of:)``).
    let changeFeeds = Mutex<[PostgresAppSchema: StoreChanges]>([:])
    /// The app schemas this process has brought up to date (``PostgresMigrations/ensure(_:in:)``).
    let currentSchemas = Mutex<Set<String>>([])
    /// Each app's LiveQuery feed on this node (``liveFeed(of:)``).
    let liveFeeds = Mutex<[PostgresAppSchema: PostgresLiveFeed]>([:])
    private let running: Task<Void, Never>

    /// A database reached as `url` says, with at most `maximumConnections` connections open.
    public init(url: String, maximumConnections: Int = 20, logger: Logger = Logger(label: "cloudlet.postgres")) throws(PostgresURLError) {
        var configuration = try PostgresURL.configuration(url)
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        // Started at once, so that the pool counts as running before the first query asks it.
        if #available(macOS 26, *) {
            running = Task.immediate { await client.run() }
        } else {
            running = Task { await client.run() }
        }
    }

    /// Closes the pool's connections; queries made after fail.
    public func close() {
        notifications.stop()
        running.cancel()
    }

    /// The signal that notifications of `topic` wake, listening first if this node is not yet.
    package func wakeSignal(for topic: String) async -> WakeSignal {
        await notifications.listen(with: client, logger: logger)
        return notifications.signal(for: topic)
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws, and then
    /// what it threw is thrown as it was (a ``ParseError`` stays one).
    package func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            if let thrown = error.closureError, error.rollbackError == nil { throw thrown }
            throw error
        }
    }

    /// Runs `sql` with `binds` outside any transaction, and answers how many rows it gave.
    @discardableResult
    package func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws -> Int {
        var rows = 0
        for try await _ in try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) { rows += 1 }
        return rows
    }
}

/// A database URL that is not one ``PostgresDatabase`` can use.
public struct PostgresURLError: Error, CustomStringConvertible {
    public let description: String
}

/// Reads a `postgres://` URL into a client configuration.
enum PostgresURL {
    static func configuration(_ text: String) throws(PostgresURLError) -> PostgresClient.Configuration {
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql" else {
            throw PostgresURLError(description: "a database URL starts postgres:// (as postgres://user:password@host:5432/database), not \(text.prefix(16))…")
        }
        guard let user = url.user, !user.isEmpty else { throw PostgresURLError(description: "the database URL names no user (postgres://user@host/database)") }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        let mode = url.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable":
            tls = .disable
        case "prefer", "allow":
            tls = .prefer(Self.unverified)
        case "require":
            tls = .require(Self.unverified)
        case "verify-ca", "verify-full":
            tls = .require(.makeClientConfiguration())
        default:
            throw PostgresURLError(description: "sslmode is disable, prefer, require, verify-ca or verify-full, not \(mode)")
        }
        return PostgresClient.Configuration(
            host: url.host ?? "localhost", port: url.port ?? 5432, username: user, password: url.password,
            database: database.isEmpty ? user : database, tls: tls)
    }

    /// TLS that encrypts without checking the server's certificate, as libpq's `require` does.
    private static var unverified: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }
}
