import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `cloudlet serve`: runs the server with the app's hooks and the registry's other apps. Each of
/// its settings (``ServeSettings``) is a flag, an environment variable `CLOUDLET_<NAME>` and a member
/// of the config file: flags win over variables, variables over the file.
struct ServeCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "serve", abstract: "Serve the app's hooks and the Parse REST API.",
            discussion: """
                Settings: each flag below is also read from the environment variable in parentheses and from the config \
                file's member of the same name in camelCase (workerMemoryMb); the flag wins over the variable, the \
                variable over the file, the file over the default.

                \(ServeSettings.table.help)
                """)
    }

    @Option(help: "A JSON config file with settings (one member per setting) and apps (CLOUDLET_CONFIG).") var config: String?
    @Option(name: .customLong("app"), help: "Also host app <id> whose hooks are in <executable>, as id=executable; repeatable.")
    var otherApps: [HostedExecutable] = []
    /// The settings' flags, read through ``SettingsReader``.
    @Argument(parsing: .allUnrecognized, help: .hidden) var settingArguments: [String] = []

    func validate() throws {
        try ServeSettings.table.check(settingArguments)
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let file = try (config ?? environment["CLOUDLET_CONFIG"]).map(ServeConfigFile.init(path:))
        let settings = SettingsReader(ServeSettings.table, arguments: settingArguments, environment: environment, file: file)
        let level = try settings.read(ServeSettings.logLevel) { Logger.Level(rawValue: $0) }
        let format = try settings.read(ServeSettings.logFormat) { LogFormat(rawValue: $0) }
        StructuredLogHandler.bootstrap(format: format, level: level)
        var configuration = try Self.configuration(settings)
        let dataLock: DataFolderLock
        do {
            dataLock = try DataFolderLock(dataDirectory: configuration.dataDirectory)
        } catch let failure as DataFolderLock.Failure {
            FileHandle.standardError.write(Data("error: \(failure)\n".utf8))
            throw ExitCode.failure
        }
        // On SQLite this node is the only one working through its apps' queues; on PostgreSQL, one of many.
        configuration.work.soleHolder = configuration.database == nil
        let descriptors = ProcessDescriptors.raiseLimitToHard()
        let registry = try await AppRegistry.open(configuration)
        let apps = try await StartingApps(
            registry: registry, defaultApp: try settings.read(ServeSettings.appId) { $0 },
            clientKey: try settings.optional(ServeSettings.clientKey) { $0 }, masterKey: try settings.optional(ServeSettings.masterKey) { $0 },
            serve: ServeSettings.appValues(settings), otherApps: otherApps, file: file)
        let operatorKeyLine = try await Self.resolveOperatorKey(
            settings.optional(ServeSettings.operatorKey) { $0 }, registry: registry, into: &configuration)
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let confinement = Self.confinement(launcher: executable, logger: Logger(label: "cloudlet.workers"))
        let server = try await CloudletApplication(
            configuration: configuration, registry: registry,
            launcher: AppLauncher(
                ownHooks: Hooks.registry(), ownExecutablePath: executable, confinement: confinement,
                longCallCores: try settings.read(ServeSettings.longHookCpu) { Double($0).flatMap(cores) },
                logger: Logger(label: "cloudlet.workers"), hookLogger: Logger(label: "cloudlet.hooks")),
            logger: Logger(label: "cloudlet"))
        WorkerFolder.removeLeftovers(dataDirectory: configuration.dataDirectory)
        do {
            try await server.loadApps()
        } catch let error as ParseError {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
        FileHandle.standardOutput.write(Data((server.supervisor.manifests.map(\.text).joined(separator: "\n") + "\n").utf8))
        let main = apps.ensured[0]
        warnOfKeyFlags(
            settings, runningApps: server.supervisor.manifests.map(\.appId), mainApp: main.record.id, logger: Logger(label: "cloudlet"))
        let mount = configuration.normalizedMountPath
        let raised = descriptors.after > descriptors.before ? " (raised from \(descriptors.before))" : ""
        let reload = ReloadOnHangup(pools: { server.supervisor.pools }, logger: Logger(label: "cloudlet.workers"))
        try await server.application(services: [reload]) { [configuration] channel in
            let port = channel.localAddress?.port ?? configuration.port
            FileHandle.standardOutput.write(
                Data(
                    """
                Cloudlet is serving app "\(main.record.id)" at http://\(configuration.host):\(port)\(mount)
                  client key: \(main.clientKey)
                  master key: \(main.masterKey ?? "kept hashed in \(registry.place); make a new one with: cloudlet apps rotate-key \(main.record.id) master")
                  operator key: \(operatorKeyLine)
                  data:       \(configuration.dataDirectory)\(configuration.database == nil ? "" : "; the registry and apps' data in PostgreSQL")
                  descriptors: limit \(descriptors.after)\(raised), up to \(server.maximumConnections) connections, \
                \(configuration.connections.maximumConnectionsPerAddress) from one address
                \(apps.alsoServing)
                """.utf8))
        }.runService()
        withExtendedLifetime(dataLock) {}
    }

    /// Sets the operator key: the one given (whose hash is then kept), else the one kept, else a new
    /// one, kept hashed. Answers what the banner says about it.
    static func resolveOperatorKey(_ given: String?, registry: AppRegistry, into configuration: inout ServerConfiguration) async throws -> String {
        if let given {
            configuration.operatorKey = OperatorKey(given)
            try await registry.setOperatorKey(OperatorKey(given))
            return "as given"
        }
        let key = AppKeys.randomKey()
        // Another node starting at once may keep its key first: then that one opens the admin API.
        guard try await registry.setOperatorKeyIfNone(OperatorKey(key)) else { return "kept hashed in \(registry.place)" }
        return "\(key)  (shown this once: only its hash is kept)"
    }
}

/// `value` as a number of cores, if it is one: finite, 0 or more.
private func cores(_ value: Double) -> Double? {
    value >= 0 && value.isFinite ? value : nil
}
