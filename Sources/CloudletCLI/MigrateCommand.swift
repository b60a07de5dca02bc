import ArgumentParser
import Cloudlet
import CloudletPostgres
import CloudletServer
import Foundation

/// `cloudlet migrate`: brings a PostgreSQL database's schemas up to date (the registry's and every
/// app's, each change once under its schema's advisory lock, safe while nodes start), and with
/// `--from`, copies apps from a stopped server's data folder into it.
struct MigrateCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "migrate",
            abstract: "Apply pending schema changes to a PostgreSQL database; with --from, copy apps from a SQLite data folder into it.",
            discussion: """
                Without --from, applies the changes the registry's schema and each app's schema lack, and prints them per schema.
                With --from, also copies each app of the data folder (or those --app names): its registry record and keys, objects,
                schemas, relations, users' passwords and sessions, config, job schedules, hook runs and the work it still owes,
                row for row (no hook runs). The folder's server must be stopped; an app the database holds already is refused
                unless --replace. Files stay in the data folder's files/<id>/.
                """)
    }

    @Option(help: "PostgreSQL database (CLOUDLET_DATABASE, which keeps its password out of the process list).") var database: String?
    @Option(help: "A data folder whose apps to copy into the database (its server stopped).") var from: String?
    @Option(name: .customLong("app"), help: "An app to copy (repeatable). Default: every app of the --from folder.") var apps: [String] = []
    @Flag(help: "Drop what the database holds of an app before copying it.") var replace = false

    func validate() throws {
        if from == nil, !apps.isEmpty || replace { throw ValidationError("--app and --replace go with --from") }
    }

    func run() async throws {
        guard let url = database ?? ProcessInfo.processInfo.environment["CLOUDLET_DATABASE"] else {
            throw ValidationError("--database (or CLOUDLET_DATABASE) names the PostgreSQL database")
        }
        try await reportingErrors {
            do {
                let database = try PostgresDatabase(url: url)
                defer { database.close() }
                for applied in try await PendingMigrations.apply(in: database) {
                    print("\(applied.schema): " + (applied.changes.isEmpty ? "up to date" : "applied " + applied.changes.joined(separator: ", ")))
                }
                guard let from else { return }
                let copy = AppCopyToPostgres(dataDirectory: from, database: database)
                let files: AppCopyToPostgres.FileDestination = { id in try await PostgresFileStorage(database, schema: PostgresAppSchema(appId: id)) }
                for report in try await copy.run(apps: apps.isEmpty ? nil : apps, replace: replace, files: files) {
                    let rows = report.rows.filter { $0.count > 0 }.map { "\($0.table) \($0.count)" }
                    let copied = (rows.isEmpty ? "no rows" : rows.joined(separator: ", ")) + ", \(report.files ?? 0) files"
                    print("copied app \"\(report.appId)\": " + copied)
                }
            } catch let error as AppCopyRefusal {
                throw ParseError(code: 1, message: error.description)
            } catch let error as PostgresURLError {
                throw ParseError(code: 1, message: error.description)
            }
        }
    }
}
