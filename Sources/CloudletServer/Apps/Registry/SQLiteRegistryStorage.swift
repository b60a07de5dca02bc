import Cloudlet
import CloudletRuntime
import Foundation
import GRDB

/// The registry in the host's `host.sqlite` (see ``HostDatabase``): `apps`, `app_keys` and
/// `host_settings`. Another process (`cloudlet apps`) may write it while a server runs: the server
/// sees its changes through `PRAGMA data_version`.
struct SQLiteRegistryStorage: RegistryStorage {
    let database: HostDatabase

    func records(_ id: String?) async throws -> [AppRecord] {
        try await database.queue.read { db in
            let keys = Dictionary(grouping: try Self.fetchKeys(id, db), by: \.app)
            return try Row.fetchAll(db, sql: "SELECT * FROM apps WHERE ? IS NULL OR id = ? ORDER BY id", arguments: [id, id]).map { row in
                try AppRegistry.record(
                    id: row["id"], settings: row["settings"], keys: keys[row["id"]]?.map(\.key) ?? [], createdAt: row["created_at"],
                    updatedAt: row["updated_at"])
            }
        }
    }

    func insert(_ id: String, settings: AppSettings, keys: [(AppKeyKind, String)], at now: String) async throws -> AppRecord {
        try await database.queue.write { db in
            let existing = try String.fetchOne(db, sql: "SELECT id FROM apps WHERE id = ? COLLATE NOCASE", arguments: [id])
            try AppRegistry.checkRoom(for: id, existing: existing, count: try Int.fetchOne(db, sql: "SELECT count(*) FROM apps") ?? 0)
            try Self.insertApp(id, settings: settings, at: now, db)
            for (kind, value) in keys { try Self.insertKey(id, kind, value: value, at: now, db) }
        }
        return try await records(id)[0]
    }

    func update(_ id: String, _ change: @Sendable (inout AppSettings) throws -> Void) async throws -> AppRecord {
        try await database.queue.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT settings FROM apps WHERE id = ?", arguments: [id]) else {
                throw AppRegistry.notFound(id)
            }
            var settings = try AppRegistry.settings(row["settings"])
            try change(&settings)
            try db.execute(
                sql: "UPDATE apps SET settings = ?, updated_at = ? WHERE id = ?",
                arguments: [AppRegistry.document(settings), AppRegistry.now(), id])
        }
        return try await records(id)[0]
    }

    func delete(_ id: String) async throws {
        try await database.queue.write { db in
            try db.execute(sql: "DELETE FROM apps WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { throw AppRegistry.notFound(id) }
        }
    }

    func changeKeys(of id: String, _ kind: AppKeyKind, _ change: KeyChange, at now: String) async throws -> Int {
        try await database.queue.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM apps WHERE id = ?", arguments: [id]) == true else { throw AppRegistry.notFound(id) }
            let arguments: StatementArguments = [id, kind.rawValue]
            switch change {
            case .rotate(let value):
                try db.execute(sql: "DELETE FROM app_keys WHERE app = ? AND kind = ? AND state = 'retiring'", arguments: arguments)
                try db.execute(sql: "UPDATE app_keys SET state = 'retiring' WHERE app = ? AND kind = ?", arguments: arguments)
                try Self.insertKey(id, kind, value: value, at: now, db)
            case .retire:
                try db.execute(sql: "DELETE FROM app_keys WHERE app = ? AND kind = ? AND state = 'retiring'", arguments: arguments)
                guard db.changesCount > 0 else { return 0 }
            case .replace(let value):
                try db.execute(sql: "DELETE FROM app_keys WHERE app = ? AND kind = ?", arguments: arguments)
                try Self.insertKey(id, kind, value: value, at: now, db)
            }
            let changed = db.changesCount
            try db.execute(sql: "UPDATE apps SET updated_at = ? WHERE id = ?", arguments: [now, id])
            return changed
        }
    }

    func hostSetting(_ name: String) async throws -> String? {
        try await database.queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM host_settings WHERE name = ?", arguments: [name]) }
    }

    func setHostSetting(_ name: String, _ value: String, replacing: Bool) async throws -> Bool {
        try await database.queue.write { db in
            try db.execute(
                sql: "INSERT INTO host_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO "
                    + (replacing ? "UPDATE SET value = excluded.value" : "NOTHING"),
                arguments: [name, value])
            return db.changesCount > 0
        }
    }

    func changeVersion() async throws -> Int {
        try database.dataVersion()
    }

    func changeSignal() async -> WakeSignal? { nil }

    // MARK: Rows

    static func fetchKeys(_ id: String?, _ db: Database) throws -> [(app: String, key: StoredAppKey)] {
        let rows = try Row.fetchAll(
            db, sql: "SELECT * FROM app_keys WHERE ? IS NULL OR app = ? ORDER BY rowid", arguments: [id, id])
        return rows.compactMap { row in
            guard let key = AppRegistry.key(kind: row["kind"], value: row["value"], state: row["state"], createdAt: row["created_at"]) else { return nil }
            return (row["app"], key)
        }
    }

    static func insertApp(_ id: String, settings: AppSettings, at now: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO apps (settings, created_at, updated_at, id) VALUES (?, ?, ?, ?)",
            arguments: [AppRegistry.document(settings), now, now, id])
    }

    static func insertKey(_ id: String, _ kind: AppKeyKind, value: String, at now: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO app_keys (app, kind, value, state, created_at) VALUES (?, ?, ?, 'active', ?)",
            arguments: [id, kind.rawValue, value, now])
    }
}
