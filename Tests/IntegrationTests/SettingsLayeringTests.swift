import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Testing

@testable import CloudletCLI

/// A setting comes from its flag, else its `CLOUDLET_` variable, else the config file, else its
/// default, for every kind of value; a bad value is an error naming the setting as its source spells
/// it; and `apps create|update` take every app setting of the table as a flag.
@Suite struct SettingsLayeringTests {
    static let count = Setting("retryCount", .integer(1...10), "Retries", default: "3")
    static let pause = Setting("pauseMs", .integer(0...60_000), "Pause between retries in milliseconds", default: "250")
    static let verbose = Setting("verboseOutput", .bool, "Whether to say more", default: "false")
    static let name = Setting("serverName", .text, "The name to show", default: "cloudlet")
    static let table = SettingTable(entries: [count, pause, verbose, name], readsEnvironment: true)

    /// A config file with `json`'s members, which may be this table's.
    static func file(_ json: String) throws -> ServeConfigFile {
        try ServeConfigFile(json: Data(json.utf8), folder: URL(fileURLWithPath: "/"), members: Set(table.entries.map(\.member)))
    }

    /// The four settings as the reader gives them.
    static func read(_ reader: SettingsReader) throws -> (Int, Duration, Bool, String) {
        (
            try reader.integer(count), .milliseconds(try reader.integer(pause)),
            try reader.read(verbose) { $0.isEmpty ? true : Bool($0) }, try reader.read(name) { $0 }
        )
    }

    @Test func theFlagBeatsTheVariableWhichBeatsTheFileWhichBeatsTheDefault() throws {
        let file = try Self.file(#"{"retryCount": 5, "pauseMs": 500, "verboseOutput": true, "serverName": "from-file"}"#)
        let environment = ["CLOUDLET_RETRY_COUNT": "6", "CLOUDLET_PAUSE_MS": "600", "CLOUDLET_VERBOSE_OUTPUT": "false", "CLOUDLET_SERVER_NAME": "from-env"]
        let flags = ["--retry-count", "7", "--pause-ms=700", "--verbose-output", "--server-name", "from-flag"]

        let defaults = try Self.read(SettingsReader(Self.table, arguments: []))
        #expect(defaults == (3, .milliseconds(250), false, "cloudlet"))
        let fromFile = try Self.read(SettingsReader(Self.table, arguments: [], file: file))
        #expect(fromFile == (5, .milliseconds(500), true, "from-file"))
        let fromEnvironment = try Self.read(SettingsReader(Self.table, arguments: [], environment: environment, file: file))
        #expect(fromEnvironment == (6, .milliseconds(600), false, "from-env"))
        let fromFlags = try Self.read(SettingsReader(Self.table, arguments: flags, environment: environment, file: file))
        #expect(fromFlags == (7, .milliseconds(700), true, "from-flag"))
        // One setting from each source at once.
        // A repeated flag: the last one, as ArgumentParser reads a repeated option.
        #expect(try SettingsReader(Self.table, arguments: ["--retry-count", "2", "--retry-count=4"]).integer(Self.count) == 4)
        let mixed = SettingsReader(Self.table, arguments: ["--retry-count", "8"], environment: ["CLOUDLET_PAUSE_MS": "900"], file: file)
        #expect(try Self.read(mixed) == (8, .milliseconds(900), true, "from-file"))
    }

    @Test func aBadValueNamesTheSettingAndItsSource() throws {
        func message(_ reader: SettingsReader) -> String? {
            do {
                _ = try Self.read(reader)
                return nil
            } catch {
                return (error as? ValidationError)?.message
            }
        }
        #expect(message(SettingsReader(Self.table, arguments: ["--retry-count", "many"])) == "--retry-count has an invalid value: many (a whole number from 1 to 10)")
        #expect(message(SettingsReader(Self.table, arguments: [], environment: ["CLOUDLET_RETRY_COUNT": "11"])) == "CLOUDLET_RETRY_COUNT has an invalid value: 11 (a whole number from 1 to 10)")
        #expect(message(SettingsReader(Self.table, arguments: [], file: try Self.file(#"{"pauseMs": -1}"#))) == "config file member pauseMs has an invalid value: -1 (a whole number from 0 to 60000)")
        #expect(message(SettingsReader(Self.table, arguments: ["--verbose-output=maybe"])) == "--verbose-output has an invalid value: maybe (true or false)")
    }

    @Test func theFlagsAreCheckedAsTheCommandLineIsParsed() throws {
        #expect(throws: Never.self) { try Self.table.check(["--retry-count", "2", "--verbose-output", "--server-name=x"]) }
        for (arguments, problem) in [
            (["--retry-count"], "Missing value for '--retry-count'"), (["--retries", "2"], "Unknown option '--retries'"),
            (["stray"], "Unexpected argument 'stray'"), (["--pause-ms", "--retry-count", "2"], "Missing value for '--pause-ms'"),
            (["--retry-count", "2", "3"], "Unexpected argument '3'"), (["--retry-count=2", "3"], "Unexpected argument '3'"),
        ] {
            let error = try #require(throws: ValidationError.self) { try Self.table.check(arguments) }
            #expect(error.message == problem)
        }
    }

    @Test func serveReadsItsSettingsThroughTheTable() throws {
        let file = try ServeConfigFile(json: Data(#"{"port": 4000, "idleTimeoutMs": 5000, "trustedProxies": ["10.0.0.0/8"]}"#.utf8), folder: URL(fileURLWithPath: "/"))
        let reader = SettingsReader(
            ServeSettings.table, arguments: ["--port", "4001", "--trusted-proxy", "10.0.0.1", "--trusted-proxy", "10.0.0.2"],
            environment: ["CLOUDLET_PORT": "4002", "CLOUDLET_IDLE_TIMEOUT_MS": "6000", "CLOUDLET_WORKER_MEMORY_MB": "64"], file: file)
        let configuration = try ServeCommand<DocumentationCommandTests.NoHooks>.configuration(reader)
        #expect(configuration.port == 4001)
        #expect(configuration.connections.idleTimeout == .seconds(6))
        #expect(configuration.host == ServerConfiguration().host)
        #expect(configuration.trustedProxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        let appValues = try ServeSettings.appValues(reader)
        #expect(appValues.first { $0.field.member == "workerMemoryMb" }?.value == 64)
        #expect(appValues.first { $0.field.member == "workers" }?.value == .number(Double(ProcessInfo.processInfo.activeProcessorCount)))
        #expect(ServeConfigFile.serverMembers.contains("workerMemoryMb") && ServeConfigFile.serverMembers.contains("maxRequestsPerAddress"))
        let help = DocumentationCommandTests.Commands.helpMessage(for: ServeCommand<DocumentationCommandTests.NoHooks>.self, columns: 10_000)
        #expect(help.contains("--worker-memory-mb <worker-memory-mb>") && help.contains("(CLOUDLET_WORKER_MEMORY_MB). Default \(WorkerPoolConfiguration.defaultMemoryLimitMegabytes)."))
    }

    @Test func appsCreateAndUpdateTakeEverySettingOfTheTable() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-apps-flags-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        func run(_ arguments: [String]) async throws {
            var command = try DocumentationCommandTests.Commands.parseAsRoot(arguments + ["--data", data.path]) as! any AsyncParsableCommand
            try await command.run()
        }
        try await run([
            "apps", "create", "shop", "--workers", "3", "--worker-memory-mb", "64", "--rate-limit", "5/s,burst=10", "--files-need-session",
            "--max-upload-bytes", "1024", "--job-schedules", #"{"cleanup": "0 3 * * *"}"#, "--max-hook-time-limit-ms", "5000",
        ])
        let registry = try AppRegistry(dataDirectory: data.path)
        var settings = try #require(try await registry.app("shop")?.settings)
        #expect(settings.workerCount == 3 && settings.workerMemoryMegabytes == 64 && settings.maximumHookTimeLimit == .seconds(5))
        #expect(settings.rateLimits.quota == (try RateLimitPolicy.quota(text: "5/s,burst=10")))
        #expect(settings.files == FileSettings(maximumUploadBytes: 1024, requireSession: true))
        #expect(settings.jobSchedules.keys.sorted() == ["cleanup"])

        try await run(["apps", "update", "shop", "--worker-memory-mb", "0", "--max-total-file-bytes", "4096", "--isolation", "in-process"])
        settings = try #require(try await registry.app("shop")?.settings)
        #expect(settings.workerMemoryMegabytes == 0 && settings.workerCount == 3 && settings.isolation == .inProcess)
        #expect(settings.files.maximumTotalBytes == 4096 && settings.files.requireSession)

        for (flag, value, message) in [
            ("--workers", "65", "a whole number from 1 to 64"), ("--workers", "many", "a whole number from 1 to 64"),
            ("--isolation", "elsewhere", "see --help"), ("--push", "{", "a JSON document"),
        ] {
            let error = await #expect(throws: ValidationError.self) { try await run(["apps", "update", "shop", flag, value]) }
            #expect(error?.message == "\(flag) has an invalid value: \(value) (\(message))")
        }
        // What only the registry can check is printed as `error: hooks: /no/such/hooks does not exist`, with status 1.
        await #expect(throws: ExitCode.failure) { try await run(["apps", "update", "shop", "--hooks", "/no/such/hooks"]) }
        #expect(throws: (any Error).self) { try DocumentationCommandTests.Commands.parseAsRoot(["apps", "update", "shop", "--wrokers", "2"]) }
        #expect(try await registry.app("shop")?.settings == settings)
    }

    @Test func theAppIdMayComeBeforeBetweenOrAfterTheSettingsFlags() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-apps-order-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        func run(_ arguments: [String]) async throws {
            var command = try DocumentationCommandTests.Commands.parseAsRoot(arguments + ["--data", data.path]) as! any AsyncParsableCommand
            try await command.run()
        }
        try await run(["apps", "create", "--workers", "2", "shop", "--files-need-session", "--worker-memory-mb", "64"])
        try await run(["apps", "create", "--files-need-session", "true", "--workers", "3", "cart"])
        try await run(["apps", "update", "--worker-memory-mb", "96", "shop"])
        let registry = try AppRegistry(dataDirectory: data.path)
        let shop = try #require(try await registry.app("shop")?.settings), cart = try #require(try await registry.app("cart")?.settings)
        #expect(shop.workerCount == 2 && shop.workerMemoryMegabytes == 96 && shop.files.requireSession)
        #expect(cart.workerCount == 3 && cart.files.requireSession)
        #expect(throws: (any Error).self) { try DocumentationCommandTests.Commands.parseAsRoot(["apps", "create", "--workers", "2"]) }
        #expect(throws: (any Error).self) { try DocumentationCommandTests.Commands.parseAsRoot(["apps", "update", "shop", "cart"]) }
        #expect(try await registry.list().map(\.id).sorted() == ["cart", "shop"])
    }
}
