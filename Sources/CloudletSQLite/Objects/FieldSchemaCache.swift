import Cloudlet
import CloudletRuntime
import GRDB
import Synchronization

/// The type of each field of each class, as first written; kept in the `fields` table and cached.
/// Checked inside the write transaction, so two first writes of different types cannot both win.
/// The first write of a class also records the class (the `classes` table of ``SQLiteSchemaStore``).
final class FieldSchemaCache: Sendable {
    private let types = Mutex<[String: [String: String]]>([:])
    /// The classes known to be recorded in `classes` (learnt only once a transaction commits).
    private let recordedClasses = Mutex<Set<String>>([])

    /// Throws 111 if a field of `object` has a type other than the one its class recorded; records
    /// the types of fields seen for the first time.
    func check(_ object: ParseObject, _ db: Database) throws {
        let className = object.className
        try recordClass(className, db)
        var known = try types.withLock { $0[className] } ?? loadTypes(className, db)
        var added: [(String, String)] = []
        for (field, value) in object.fields {
            guard let type = ParseFieldType.ofValidated(value)?.description else { continue }
            // A field the cache does not know may have been recorded earlier in this same
            // transaction (by another object of the write), which the cache learns only at commit.
            if let expected = try known[field] ?? recordedType(className, field, db) {
                guard expected == type else {
                    throw ParseError.incorrectType(
                        "schema mismatch for \(className).\(field); expected \(expected) but got \(type)")
                }
                known[field] = expected
            } else {
                known[field] = type
                added.append((field, type))
            }
        }
        guard !added.isEmpty else { return }
        for (field, type) in added {
            try db.execute(
                sql: "INSERT INTO fields (class, field, type) VALUES (?, ?, ?)", arguments: [className, field, type])
        }
        // Publish the new types only once the transaction commits.
        let snapshot = known
        db.afterCommit { self.types.withLock { $0[className] = snapshot } }
    }

    /// Forgets what is cached of `className`, after its schema changed.
    func forget(_ className: String) {
        types.withLock { $0[className] = nil }
        _ = recordedClasses.withLock { $0.remove(className) }
    }

    private func recordClass(_ className: String, _ db: Database) throws {
        guard !recordedClasses.withLock({ $0.contains(className) }) else { return }
        try db.execute(sql: "INSERT OR IGNORE INTO classes (class) VALUES (?)", arguments: [className])
        db.afterCommit { _ = self.recordedClasses.withLock { $0.insert(className) } }
    }

    private func recordedType(_ className: String, _ field: String, _ db: Database) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT type FROM fields WHERE class = ? AND field = ?"), arguments: [className, field])
    }

    private func loadTypes(_ className: String, _ db: Database) throws -> [String: String] {
        let rows = try Row.fetchAll(db, sql: "SELECT field, type FROM fields WHERE class = ?", arguments: [className])
        let loaded = Dictionary(uniqueKeysWithValues: rows.map { ($0["field"] as String, $0["type"] as String) })
        types.withLock { $0[className] = loaded }
        return loaded
    }
}
