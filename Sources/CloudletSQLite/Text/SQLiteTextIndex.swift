import GRDB

/// The full-text index behind `$text`: one FTS5 table for the whole app, in its own database, with
/// one row for each String field of each object of the searchable classes.
///
/// `text_fields` names each indexed field (class, object id, field) under an integer `doc`, the
/// rowid of its row in `text_index`, a contentless FTS5 table (the text stays in `objects` only)
/// tokenized by `porter unicode61 remove_diacritics 2`: words folded in case and diacritics and
/// reduced to their English stems. Triggers on `objects` keep both in step in the transaction of
/// every write, whichever store makes it: an insert indexes the new row's top-level String
/// fields, a delete removes the old row's, and an update whose fields change does both (a
/// contentless table forgets a row by being told its old text, which the trigger has as
/// `OLD.data`). Every String field is indexed as it is written, so a search never builds an index
/// under a read; the cost is paid by writes, in proportion to the text they store.
enum SQLiteTextIndex {
    /// The classes whose objects are indexed: every class of the app, and of Parse's own classes
    /// those an app searches (users and roles); the others (sessions, installations, push and job
    /// statuses) hold no text to search, and `$text` on them answers 102.
    static func isSearchable(_ className: String) -> Bool {
        !className.hasPrefix("_") || ["_User", "_Role"].contains(className)
    }

    /// ``isSearchable(_:)`` in SQL, for the class column `column`.
    private static func searchable(_ column: String) -> String {
        "(substr(\(column), 1, 1) <> '_' OR \(column) IN ('_User', '_Role'))"
    }

    /// Inserts the index rows of the object `row` (`NEW` or an alias of `objects`).
    private static func indexing(_ row: String) -> String {
        """
        INSERT INTO text_fields (class, id, field)
            SELECT \(row).class, \(row).id, json_each.key FROM json_each(\(row).data) WHERE json_each.type = 'text';
        INSERT INTO text_index (rowid, text)
            SELECT f.doc, e.value FROM json_each(\(row).data) AS e
            JOIN text_fields AS f ON f.class = \(row).class AND f.id = \(row).id AND f.field = e.key
            WHERE e.type = 'text';
        """
    }

    /// Removes the index rows of the object `OLD`.
    private static let forgetting = """
        INSERT INTO text_index (text_index, rowid, text)
            SELECT 'delete', f.doc, e.value FROM json_each(OLD.data) AS e
            JOIN text_fields AS f ON f.class = OLD.class AND f.id = OLD.id AND f.field = e.key
            WHERE e.type = 'text';
        DELETE FROM text_fields WHERE class = OLD.class AND id = OLD.id;
        """

    /// The index, its triggers, and the index rows of every object already stored.
    static func registerTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("text_index") { db in
            try db.execute(
                sql: """
                    CREATE TABLE text_fields (
                        doc INTEGER PRIMARY KEY, class TEXT NOT NULL, id TEXT NOT NULL, field TEXT NOT NULL,
                        UNIQUE (class, id, field)
                    );
                    CREATE VIRTUAL TABLE text_index USING fts5(
                        text, content = '', tokenize = 'porter unicode61 remove_diacritics 2'
                    );
                    CREATE TRIGGER objects_text_insert AFTER INSERT ON objects WHEN \(searchable("NEW.class")) BEGIN
                        \(indexing("NEW"))
                    END;
                    CREATE TRIGGER objects_text_delete AFTER DELETE ON objects WHEN \(searchable("OLD.class")) BEGIN
                        \(forgetting)
                    END;
                    CREATE TRIGGER objects_text_update AFTER UPDATE OF data ON objects
                        WHEN \(searchable("NEW.class")) AND OLD.data IS NOT NEW.data BEGIN
                        \(forgetting)
                        \(indexing("NEW"))
                    END;
                    """)
            try db.execute(
                sql: """
                    INSERT INTO text_fields (class, id, field)
                        SELECT o.class, o.id, e.key FROM objects AS o, json_each(o.data) AS e
                        WHERE e.type = 'text' AND \(searchable("o.class"));
                    INSERT INTO text_index (rowid, text)
                        SELECT f.doc, e.value FROM objects AS o, json_each(o.data) AS e
                        JOIN text_fields AS f ON f.class = o.class AND f.id = o.id AND f.field = e.key
                        WHERE e.type = 'text' AND \(searchable("o.class"));
                    """)
        }
    }
}
