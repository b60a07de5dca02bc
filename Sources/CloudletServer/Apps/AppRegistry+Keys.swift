import Cloudlet
import GRDB

extension AppRegistry {
    /// Rotates the `kind` key of app `id` without downtime: a new active key is made and answered
    /// (this once, for a master key), the active one becomes retiring and stays valid until
    /// ``retireKeys(of:_:)``. A key that was already retiring is removed. Throws 101 if there is no such app.
    public func rotateKey(of id: String, _ kind: AppKeyKind) throws -> String {
        let key = AppKeys.randomKey()
        try database.queue.write { db in
            guard try Self.fetchApp(id, db) != nil else { throw Self.notFound(id) }
            try db.execute(
                sql: "DELETE FROM app_keys WHERE app = ? AND kind = ? AND state = 'retiring'", arguments: [id, kind.rawValue])
            try db.execute(
                sql: "UPDATE app_keys SET state = 'retiring' WHERE app = ? AND kind = ?", arguments: [id, kind.rawValue])
            try Self.insertKey(id, kind, value: Self.stored(key, kind), at: HostDatabase.now(), db)
            try Self.touch(id, db)
        }
        return key
    }

    /// Removes the retiring `kind` keys of app `id`, which are then refused; answers how many there were.
    @discardableResult
    public func retireKeys(of id: String, _ kind: AppKeyKind) throws -> Int {
        try database.queue.write { db in
            guard try Self.fetchApp(id, db) != nil else { throw Self.notFound(id) }
            try db.execute(
                sql: "DELETE FROM app_keys WHERE app = ? AND kind = ? AND state = 'retiring'", arguments: [id, kind.rawValue])
            let retired = db.changesCount
            if retired > 0 { try Self.touch(id, db) }
            return retired
        }
    }

    /// What ``ensure(_:settings:clientKey:masterKey:)`` did.
    public struct EnsuredApp: Sendable {
        /// The app as the registry keeps it.
        public var record: AppRecord
        /// The client key in use.
        public var clientKey: String
        /// The master key, when it was made or given now; nil when the registry keeps only its hash.
        public var masterKey: String?
    }

    /// Makes sure app `id` exists with `settings` (as `serve` does for the apps it is told about):
    /// creates it if needed; a given key that is not the app's active one replaces its keys of that kind.
    public func ensure(_ id: String, settings: AppSettings, clientKey: String? = nil, masterKey: String? = nil) throws -> EnsuredApp {
        guard let existing = try app(id) else {
            let created = try create(id, settings: settings, clientKey: clientKey, masterKey: masterKey)
            return EnsuredApp(record: created.record, clientKey: created.clientKey, masterKey: created.masterKey)
        }
        try database.queue.write { db in
            for (kind, given) in [(AppKeyKind.client, clientKey), (.master, masterKey)] {
                guard let given else { continue }
                let value = Self.stored(given, kind)
                guard !existing.keys.contains(where: { $0.kind == kind && $0.state == .active && $0.value == value }) else { continue }
                try db.execute(sql: "DELETE FROM app_keys WHERE app = ? AND kind = ?", arguments: [id, kind.rawValue])
                try Self.insertKey(id, kind, value: value, at: HostDatabase.now(), db)
            }
        }
        let record = existing.settings == settings ? try app(id)! : try update(id) { $0 = settings }
        let activeClientKey = record.keys.first { $0.kind == .client && $0.state == .active }?.value ?? ""
        return EnsuredApp(record: record, clientKey: activeClientKey, masterKey: masterKey)
    }

    /// The key as the registry keeps it: client keys as they are, master keys as their SHA-256.
    static func stored(_ key: String, _ kind: AppKeyKind) -> String {
        kind == .client ? key : HexBytes.encode(AppKeys.hash(key))
    }

    private static func touch(_ id: String, _ db: Database) throws {
        try db.execute(sql: "UPDATE apps SET updated_at = ? WHERE id = ?", arguments: [HostDatabase.now(), id])
    }

    // MARK: Operator key

    /// The operator key kept in the registry (as its hash), or nil.
    public func operatorKey() throws -> OperatorKey? {
        try database.queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM host_settings WHERE name = 'operator_key_sha256'")
        }.map { OperatorKey(hash: HexBytes.decode($0)) }
    }

    /// Keeps `key`'s hash as the operator key.
    public func setOperatorKey(_ key: OperatorKey) throws {
        try database.queue.write { db in
            try db.execute(
                sql: "INSERT INTO host_settings (name, value) VALUES ('operator_key_sha256', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                arguments: [HexBytes.encode(key.hash)])
        }
    }

    /// A number that changes whenever another connection (another process's `cloudlet apps`, or
    /// this registry's own writes) changed the registry.
    func dataVersion() throws -> Int {
        try database.dataVersion()
    }
}
