import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet apps …`: the app registry in the data folder's `host.sqlite`, or in the PostgreSQL
/// database nodes share. Works whether or not a server runs; a running server applies the change
/// within half a second (on PostgreSQL, every node at once).
struct AppsCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "apps", abstract: "Create, list, show, change and delete the apps a host serves, and rotate their keys.",
            subcommands: [Create.self, List.self, Show.self, Update.self, RotateKey.self, RetireKey.self, Delete.self])
    }

    struct Create: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Create an app; prints its keys (the master key only this once).", discussion: AppSettingFlags.help)
        }

        @Option(help: "A fixed client key. Default: random.") var clientKey: String?
        @Option(help: "A fixed master key. Default: random.") var masterKey: String?
        @OptionGroup var options: DataOptions
        /// The app id and the settings' flags (``AppSettingFlags``), in any order.
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp(
                "The app id: 1 to 64 letters, digits, - and _, starting with a letter or a digit; unique regardless of case.",
                valueName: "id"))
        var arguments: [String] = []
        var id: String { AppSettingFlags.appId(in: arguments) }
        var settings: [String] { AppSettingFlags.table.separated(arguments).flags }

        func validate() throws {
            try AppSettingFlags.check(arguments)
        }

        func run() async throws {
            try await reportingErrors {
                let created = try await options.registry().create(
                    id, settings: try AppSettingFlags.applied(settings, to: AppSettings()), clientKey: clientKey, masterKey: masterKey)
                if options.json {
                    var members = created.record.json.objectValue ?? [:]
                    members["clientKey"] = .string(created.clientKey)
                    members["masterKey"] = .string(created.masterKey)
                    print(JSONWriter.string(.object(members)))
                } else {
                    print("created app \"\(id)\"")
                    print("  client key: \(created.clientKey)")
                    print("  master key: \(created.masterKey)  (shown this once: only its hash is kept)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "One line per app: its id, its settings that fit a column (as apps create names them), its rate.")
        }

        @OptionGroup var options: DataOptions

        func run() async throws {
            try await reportingErrors {
                let records = try await options.registry().list()
                if options.json { return print(JSONWriter.string(.array(records.map(\.json)))) }
                for record in records {
                    let settings = record.settings.json
                    let columns = AppSettings.fields.filter { $0.kind != .json }.map(\.member).map { name in
                        settings[name].map(Self.column) ?? "-"
                    }
                    print(([record.id] + columns + [RateLimitPolicy.text(of: record.settings.rateLimits.quota)]).joined(separator: "\t"))
                }
            }
        }

        /// A setting's value as one column: a list joined by commas, `-` for none.
        private static func column(_ value: ParseValue) -> String {
            let text =
                value.arrayValue.map { $0.compactMap(\.stringValue).joined(separator: ",") }
                ?? value.stringValue ?? value.intValue.map(String.init) ?? value.boolValue.map(String.init) ?? ""
            return text.isEmpty ? "-" : text
        }
    }

    struct Show: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Show one app: settings, limits, client keys, and master keys by state.")
        }

        @Argument(help: "The app id.") var id: String
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await reportingErrors {
                guard let record = try await options.registry().app(id) else { throw ValidationError("no app \(id)") }
                if options.json { return print(JSONWriter.string(record.json)) }
                AppManifest(appId: id, settings: record.settings, hooks: []).settingsLines.forEach { print($0) }
                for key in record.keys {
                    print("  \(key.kind.rawValue) key (\(key.state.rawValue)): \(key.kind == .client ? key.value : "kept hashed")")
                }
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Change an app's settings; those not given stay as they are.", discussion: AppSettingFlags.help)
        }

        @OptionGroup var options: DataOptions
        /// The app id and the settings' flags (``AppSettingFlags``), in any order.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The app id.", valueName: "id")) var arguments: [String] = []
        var id: String { AppSettingFlags.appId(in: arguments) }
        var settings: [String] { AppSettingFlags.table.separated(arguments).flags }

        func validate() throws {
            try AppSettingFlags.check(arguments)
        }

        func run() async throws {
            try await reportingErrors {
                let record = try await options.registry().update(id) { $0 = try AppSettingFlags.applied(settings, to: $0) }
                print(options.json ? JSONWriter.string(record.json) : "updated app \"\(id)\"")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Delete an app from the registry (its data file stays in apps/).")
        }

        @Argument(help: "The app id.") var id: String
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await reportingErrors {
                try await options.registry().delete(id)
                print("deleted app \"\(id)\"")
            }
        }
    }
}

extension AppKeyKind: ExpressibleByArgument {}

/// Runs `body`, printing a registry error's message (not its type) and exiting with status 1.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ParseError {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        throw ExitCode.failure
    }
}
