import Foundation
import GRDB

/// An app database with every migration applied and nothing stored, as the bytes of its file:
/// made once per process, then copied for each new database, which then has no migrations left to
/// run (a new app's database opens in a fraction of the time; tests make hundreds).
enum SQLiteEmptyDatabase {
    /// The file's bytes, or why they could not be made.
    private static let image = Result { try make() }

    /// Writes an empty, fully migrated database at `path`, unless a file is there already; false
    /// if it wrote nothing (the database then migrates as it opens).
    static func create(at path: String) -> Bool {
        guard let bytes = try? image.get() else { return false }
        return (try? bytes.write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)) != nil
    }

    /// Migrates a database in a temporary folder, copies its log into its file, and reads the file.
    private static func make() throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("empty.sqlite").path
        let database = try SQLiteAppDatabase(path: path, checkpointInlinePages: SQLiteCheckpointer.defaultInlinePages, fromImage: false)
        _ = try database.pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try database.pool.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }
}
