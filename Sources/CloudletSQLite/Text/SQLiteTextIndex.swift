import CloudletRuntime
import GRDB

/// The full-text index behind `$text`: one FTS5 table for the whole app, in its own database, with
/// one row for each String field of each object of the classes indexed.
///
/// `text_fields` names each indexed field (class, object id, field) under an integer `doc`, the
/// rowid of its row in `text_index`, a contentless FTS5 table (the text stays in `objects` only)
/// tokenized by `porter unicode61 remove_diacritics 2`: words folded in case and diacritics and
/// reduced to their English stems. Triggers on `objects` keep both in step in the transaction of
/// every write to a class listed in `text_classes`, whichever store makes it: an insert indexes the
/// new row's top-level String fields, a delete removes the old row's, and an update indexes again
/// the String fields it changed (a contentless table forgets a row by being told its old text,
/// which the trigger has as `OLD.data`).
///
/// A class is indexed from its first search on (as Parse Server on MongoDB creates a text index
/// the first time a class is searched): that search indexes the objects the class holds, in one
/// write, and from then on every write indexes what it stores. Writes to a class never searched
/// pay nothing for the index (indexing a save's text costs several times the save itself).
enum SQLiteTextIndex {
    /// The classes whose objects are indexed: every class of the app, and of Parse's own classes
    /// those an app searches (users and roles); the others (sessions, installations, push and job
    /// statuses) hold no text to search, and `$text` on them answers 102.
    static func isSearchable(_ className: String) -> Bool {
        TextSearch.isSearchable(className)
    }

    /// ``isSearchable(_:)`` in SQL, for the class column `column`.
    private static func searchable(_ column: String) -> String {
        "(substr(\(column), 1, 1) <> '_' OR \(column) IN ('_User', '_Role'))"
    }

    /// The statements that index an object, whose class, id and fields are the SQL expressions
    /// given (`NEW.class`, … in a trigger; `?1`, … for an object bound). FTS5 takes rows in
    /// ascending rowid order without flushing its buffer, so they are inserted by `doc`.
    private static func indexing(className: String, id: String, data: String) -> [String] {
        [
            """
            INSERT INTO text_fields (class, id, field)
                SELECT \(className), \(id), json_each.key FROM json_each(\(data)) WHERE json_each.type = 'text'
            """,
            """
            INSERT INTO text_index (rowid, text)
                SELECT f.doc, e.value FROM json_each(\(data)) AS e
                JOIN text_fields AS f ON f.class = \(className) AND f.id = \(id) AND f.field = e.key
                WHERE e.type = 'text' ORDER BY f.doc
            """,
        ]
    }

    /// Indexes the object `NEW`, in a trigger.
    private static let indexingNew = indexing(className: "NEW.class", id: "NEW.id", data: "NEW.data").map { $0 + ";" }.joined(separator: "\n")

    /// The String fields of the JSON object `data`, as one JSON object: the same text exactly when
    /// the same fields hold the same strings (an update of other fields leaves the index alone).
    private static func strings(_ data: String) -> String {
        "(SELECT json_group_object(key, value) FROM json_each(\(data)) WHERE type = 'text')"
    }

    /// Whether the String field `key` whose text is `value` is not the same String field of the
    /// JSON object `other` (changed, removed or no longer a String there).
    private static func differs(_ key: String, _ value: String, in other: String) -> String {
        let path = "'$.\"' || \(key) || '\"'"
        return "(json_type(\(other), \(path)) IS NOT 'text' OR json_extract(\(other), \(path)) IS NOT \(value))"
    }

    /// Indexes again, in a trigger, only the String fields an update changed: the old text of
    /// each field it changed or removed leaves the index, the new text of each it changed or added
    /// enters it; the fields it left alone keep their rows.
    private static let reindexingChanges = """
        INSERT INTO text_index (text_index, rowid, text)
            SELECT 'delete', f.doc, e.value FROM json_each(OLD.data) AS e
            JOIN text_fields AS f ON f.class = OLD.class AND f.id = OLD.id AND f.field = e.key
            WHERE e.type = 'text' AND \(differs("e.key", "e.value", in: "NEW.data")) ORDER BY f.doc;
        DELETE FROM text_fields WHERE class = OLD.class AND id = OLD.id AND field IN (
            SELECT key FROM json_each(OLD.data) WHERE type = 'text' AND \(differs("key", "value", in: "NEW.data")));
        INSERT INTO text_fields (class, id, field)
            SELECT NEW.class, NEW.id, key FROM json_each(NEW.data) WHERE type = 'text' AND \(differs("key", "value", in: "OLD.data"));
        INSERT INTO text_index (rowid, text)
            SELECT f.doc, e.value FROM json_each(NEW.data) AS e
            JOIN text_fields AS f ON f.class = NEW.class AND f.id = NEW.id AND f.field = e.key
            WHERE e.type = 'text' AND \(differs("e.key", "e.value", in: "OLD.data")) ORDER BY f.doc;
        """

    /// Removes the index rows of the object `OLD`, in a trigger.
    private static let forgetting = """
        INSERT INTO text_index (text_index, rowid, text)
            SELECT 'delete', f.doc, e.value FROM json_each(OLD.data) AS e
            JOIN text_fields AS f ON f.class = OLD.class AND f.id = OLD.id AND f.field = e.key
            WHERE e.type = 'text' ORDER BY f.doc;
        DELETE FROM text_fields WHERE class = OLD.class AND id = OLD.id;
        """

    /// The triggers that keep the index in step with the writes to the classes `isIndexed` selects
    /// (a condition on the class column it is given: `NEW.class` or `OLD.class`).
    private static func triggers(_ isIndexed: (String) -> String) -> String {
        """
        CREATE TRIGGER objects_text_insert AFTER INSERT ON objects WHEN \(isIndexed("NEW.class")) BEGIN
            \(indexingNew)
        END;
        CREATE TRIGGER objects_text_delete AFTER DELETE ON objects WHEN \(isIndexed("OLD.class")) BEGIN
            \(forgetting)
        END;
        CREATE TRIGGER objects_text_update AFTER UPDATE OF data ON objects
            WHEN \(isIndexed("NEW.class")) AND \(strings("OLD.data")) IS NOT \(strings("NEW.data")) BEGIN
            \(reindexingChanges)
        END;
        """
    }

    /// Whether the class column `column` names a class listed in `text_classes`.
    private static func listed(_ column: String) -> String {
        "\(column) IN (SELECT class FROM text_classes)"
    }

    /// Indexes, in the transaction of `db`, the objects of `className` whose rows `selection` selects
    /// (a condition on `objects`, with its arguments).
    private static func indexObjects(where selection: String, _ arguments: StatementArguments, _ db: Database) throws {
        let statements = try indexing(className: "?1", id: "?2", data: "?3").map { try db.makeStatement(sql: $0) }
        let objects = try Row.fetchCursor(db, sql: "SELECT class, id, data FROM objects WHERE \(selection)", arguments: arguments)
        while let object = try objects.next() {
            let arguments = StatementArguments(Array(object.databaseValues))
            for statement in statements { try statement.execute(arguments: arguments) }
        }
    }

    /// Lists `className` among the classes indexed and indexes the objects it holds, in the
    /// transaction of `db`, unless it is listed already.
    static func startIndexing(_ className: String, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO text_classes (class) VALUES (?)", arguments: [className])
        guard db.changesCount > 0 else { return }
        try indexObjects(where: "class = ?", [className], db)
    }

    /// The classes listed as indexed.
    static func indexedClasses(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT class FROM text_classes"))
    }

    /// The index, its triggers, and the index rows of every object already stored; then the list
    /// of the classes indexed, which starts with every class that holds objects then (their index
    /// rows are kept), and triggers that index only the classes listed.
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
                    """ + triggers(searchable))
            // The objects already stored, one at a time as the triggers index them.
            try indexObjects(where: searchable("class"), [], db)
        }
    }

    /// The list of indexed classes (see ``registerTables(_:)``), registered after the migrations
    /// that came after the index.
    static func registerClassList(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("text_index_by_class") { db in
            try db.execute(
                sql: """
                    CREATE TABLE text_classes (class TEXT PRIMARY KEY) WITHOUT ROWID;
                    INSERT INTO text_classes (class) SELECT DISTINCT class FROM objects WHERE \(searchable("class"));
                    DROP TRIGGER objects_text_insert;
                    DROP TRIGGER objects_text_delete;
                    DROP TRIGGER objects_text_update;
                    """ + triggers(listed))
        }
    }
}
