import PostgresTestServer

extension ServedStore {
    /// How a store is named to the processes: nothing on SQLite (the data folder is given with
    /// `--data`); on PostgreSQL, a new, empty database.
    struct Naming {
        /// The environment of `serve` (and of a command that is to read it from there): `CLOUDLET_DATABASE`.
        let environment: [String: String]
        /// The arguments of a command: `--database <url>`.
        let arguments: [String]
    }

    /// A new place for apps' data on this store, and how to name it.
    func naming() async throws -> Naming {
        guard let url = try await newDatabase() else { return Naming(environment: [:], arguments: []) }
        return Naming(environment: ["CLOUDLET_DATABASE": url], arguments: ["--database", url])
    }
}
