import CloudletRuntime
import GRDB

/// The join rows of relation fields: one row for each object in each object's relation field, in one
/// `relations` table for every class and field of the app.
///
/// Parse Server on PostgreSQL makes a table per relation field (`_Join:<field>:<class>`, holding
/// `owningId` and `relatedId`); one table keyed by (owning class, owning id, field, related id)
/// holds the same rows with a fixed schema: no table is created under a write, and no class or
/// field name ever becomes part of SQL text. Its key serves both reading a relation (`$relatedTo`)
/// and dropping an owner's rows; the second index, by related id and class, finds the owners that
/// relate an object (a query on a relation field) and drops the rows of a related object when it
/// is deleted.
enum SQLiteRelations {
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("relations") { db in
            try db.execute(
                sql: """
                    CREATE TABLE relations (
                        owning_class TEXT NOT NULL, owning_id TEXT NOT NULL, field TEXT NOT NULL,
                        related_class TEXT NOT NULL, related_id TEXT NOT NULL,
                        PRIMARY KEY (owning_class, owning_id, field, related_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX relations_by_related ON relations (related_id, related_class);
                    """)
        }
    }

    /// Adds and removes the join rows `changes` asks for, for the object `id` of `className`, in
    /// the transaction of `db`.
    static func apply(_ changes: [String: RelationChange], owner className: String, id: String, _ db: Database) throws {
        for (field, change) in changes {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO relations (owning_class, owning_id, field, related_class, related_id)
                    VALUES (?, ?, ?, ?, ?)
                    """)
            for related in change.adding.sorted() {
                try insert.execute(arguments: [className, id, field, change.targetClass, related])
            }
            let delete = try db.cachedStatement(
                sql: "DELETE FROM relations WHERE owning_class = ? AND owning_id = ? AND field = ? AND related_id = ?")
            for related in change.removing.sorted() {
                try delete.execute(arguments: [className, id, field, related])
            }
        }
    }

    /// Drops every join row of the object `id` of `className`, as owner or as related object.
    static func removeAll(of className: String, id: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM relations WHERE owning_class = ? AND owning_id = ?", arguments: [className, id])
        try db.execute(sql: "DELETE FROM relations WHERE related_class = ? AND related_id = ?", arguments: [className, id])
    }
}
