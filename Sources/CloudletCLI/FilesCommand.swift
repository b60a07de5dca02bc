import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet files prune <app>`: removes the app's uploaded files that no object references, straight
/// in the data folder or the PostgreSQL database, with or without a running server.
struct FilesCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "files", abstract: "Manage an app's uploaded files.", subcommands: [Prune.self])
    }

    struct Prune: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Remove the app's files that no object references, and say which.")
        }

        @OptionGroup var options: AppDataOptions
        @Option(help: "Only files stored before this: a duration back (90s, 10m, 24h, 7d) or a date. Default 24h.")
        var olderThan = "24h"
        @Flag(help: "Only say which files would be removed.") var dryRun = false

        func validate() throws {
            guard HookRunQuery.time(olderThan, before: Date()) != nil else {
                throw ValidationError("--older-than must be a duration such as 24h or a date such as 2025-01-31T12:00:00.000Z")
            }
        }

        func run() async throws {
            let before = HookRunQuery.time(olderThan, before: Date())!
            let pruned = try await options.withExistingStorage { storage in
                try await UnusedFiles.prune(storage.files, usage: storage.stores.fileUsage, storedBefore: before, remove: !dryRun)
            }
            if options.json {
                return print(JSONWriter.string(.array(pruned.map { ["name": .string($0.name), "size": .number(Double($0.size))] })))
            }
            for file in pruned { print("\(dryRun ? "would remove" : "removed") \(file.name) (\(file.size) bytes)") }
            let total = pruned.reduce(Int64(0)) { $0 + $1.size }
            print("\(dryRun ? "would remove" : "removed") \(pruned.count) unreferenced file\(pruned.count == 1 ? "" : "s") (\(total) bytes)")
        }
    }
}
