import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `cloudlet serve`: runs the server with the app's hooks and the registry's other apps. Each flag
/// can also come from an environment variable `CLOUDLET_<NAME>` or a member of the config file:
/// flags win over variables, variables over the file.
struct ServeCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "serve", abstract: "Serve the app's hooks and the Parse REST API.")
    }

    @Option(help: "A JSON config file with settings (one member per flag) and apps (CLOUDLET_CONFIG).") var config: String?
    @Option(help: "Address to listen on (CLOUDLET_HOST). Default 127.0.0.1.") var host: String?
    @Option(help: "Port to listen on, 0 for any free one (CLOUDLET_PORT). Default 1337.") var port: Int?
    @Option(help: "Folder for the databases (CLOUDLET_DATA). Default ./data.") var data: String?
    @Option(help: "Path prefix of the REST API (CLOUDLET_MOUNT_PATH). Default /parse.") var mountPath: String?
    @Option(help: "App id clients send (CLOUDLET_APP_ID). Default dev.") var appId: String?
    @Option(help: "Fixed client key (CLOUDLET_CLIENT_KEY). Default: random on first start, then kept.") var clientKey: String?
    @Option(help: "Fixed master key (CLOUDLET_MASTER_KEY). Default: random on first start, then kept hashed.") var masterKey: String?
    @Option(help: "Largest request body in bytes (CLOUDLET_MAX_BODY_BYTES). Default 1048576.") var maxBodyBytes: Int?
    @Option(help: "Most bytes one request may read and answer (CLOUDLET_MAX_RESPONSE_BYTES). Default 16777216.") var maxResponseBytes: Int?
    @Option(help: "Largest stored object in bytes (CLOUDLET_MAX_OBJECT_BYTES). Default 1048576.") var maxObjectBytes: Int?
    @Option(help: "Commit durability, normal or full (CLOUDLET_DURABILITY). Default normal.") var durability: SQLiteObjectStorage.Durability?
    @Option(help: "Log level: trace, debug, info, notice, warning, error (CLOUDLET_LOG_LEVEL). Default info.") var logLevel: Logger.Level?
    @Option(help: "Where the app's hooks run: process or in-process (CLOUDLET_ISOLATION). Default process.") var isolation: HookIsolation?
    @Option(help: "Worker processes per app (CLOUDLET_WORKERS). Default: the number of cores.") var workers: Int?
    @Option(help: "Memory limit of each worker in MiB, 0 for none (CLOUDLET_WORKER_MEMORY_MB). Default \(WorkerPoolConfiguration.defaultMemoryLimitMegabytes).") var workerMemoryMb: Int?
    @Option(
        help: "CPU, in cores, each app's workers may take together while their hooks run past 25 ms, where cgroups can be used; 0 for no cap (CLOUDLET_LONG_HOOK_CPU). Default 0.25.")
    var longHookCpu: Double?
    @Option(help: "The app's request quota: 40/s,burst=80, 600/min or off (CLOUDLET_RATE_LIMIT). Default 40/s,burst=80.")
    var rateLimit: String?
    @Option(help: "The key of the admin API, /metrics and the hook logs (CLOUDLET_OPERATOR_KEY). Default: generated on first start, printed once, kept hashed.")
    var operatorKey: String?
    @Option(
        name: .customLong("trusted-proxy"),
        help: "A proxy (address or network such as 10.0.0.0/8) whose X-Forwarded-For names the client; repeatable (CLOUDLET_TRUSTED_PROXIES, comma-separated). Default none.")
    var trustedProxies: [String] = []
    @Option(name: .customLong("app"), help: "Also host app <id> whose hooks are in <executable>, as id=executable; repeatable.")
    var otherApps: [HostedExecutable] = []
    @Option(help: "Log line format, logfmt or json (CLOUDLET_LOG_FORMAT). Default logfmt.") var logFormat: LogFormat?
    @Option(help: "The server's address as clients reach it, which file URLs start with (CLOUDLET_PUBLIC_URL). Default: http://<host>:<port> it listens on.")
    var publicUrl: String?
    @Option(help: "Hook runs each app's hook log keeps, the newest (CLOUDLET_HOOK_LOG_RETENTION). Default 10000.") var hookLogRetention: Int?
    @OptionGroup var connectionOptions: ConnectionOptions
    @Option(help: "MiB uploads leave free on the data folder's disk, 0 for none (CLOUDLET_MIN_FREE_DISK_MB). Default 1024.")
    var minFreeDiskMb: Int64?

    func validate() throws {
        if let longHookCpu, cores(longHookCpu) == nil { throw ValidationError("--long-hook-cpu takes a number of cores, 0 or more") }
        if let minFreeDiskMb, minFreeDiskMb < 0 { throw ValidationError("--min-free-disk-mb takes a number of MiB, 0 or more") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let file = try (config ?? environment["CLOUDLET_CONFIG"]).map(ServeConfigFile.init(path:))
        let settings = ServeSettings(environment, file: file)
        let level = try settings.value(logLevel, "logLevel", default: Logger.Level.info) { Logger.Level(rawValue: $0) }
        let format = try settings.value(logFormat, "logFormat", default: .logfmt) { LogFormat(rawValue: $0) }
        LoggingSystem.bootstrap(
            { label, provider in
                var handler = StructuredLogHandler(label: label, format: format, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: RequestIdentity.metadataProvider)
        var configuration = ServerConfiguration(
            host: try settings.value(host, "host", default: "127.0.0.1") { $0 },
            port: try settings.value(port, "port", default: 1337) { Int($0) },
            dataDirectory: try settings.value(data, "data", default: "./data") { $0 },
            mountPath: try settings.value(mountPath, "mountPath", default: "/parse") { $0 },
            maximumBodyBytes: try settings.value(maxBodyBytes, "maxBodyBytes", default: 1 << 20) { Int($0) },
            durability: try settings.value(durability, "durability", default: .normal) { SQLiteObjectStorage.Durability(rawValue: $0) },
            maximumResponseBytes: try settings.value(maxResponseBytes, "maxResponseBytes", default: 16 << 20) { Int($0) },
            maximumObjectBytes: try settings.value(maxObjectBytes, "maxObjectBytes", default: 1 << 20) { Int($0) },
            trustedProxies: try TrustedProxies(
                settings.value(trustedProxies.isEmpty ? nil : trustedProxies, "trustedProxies", default: []) {
                    $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                }),
            hookRunRetention: try settings.value(hookLogRetention, "hookLogRetention", default: 10_000) { Int($0) })
        configuration.publicURL = settings.optional(publicUrl, "publicUrl")
        configuration.connections = try connectionOptions.limits(settings)
        let descriptors = ProcessDescriptors.raiseLimitToHard()
        let minimumFreeDiskMegabytes = try settings.value(minFreeDiskMb, "minFreeDiskMb", default: 1024) { Int64($0).flatMap { $0 >= 0 ? $0 : nil } }
        configuration.minimumFreeDiskBytes = minimumFreeDiskMegabytes << 20
        let registry = try AppRegistry(dataDirectory: configuration.dataDirectory)
        let flags = StartingApps.ServeFlags(
            isolation: try settings.value(isolation, "isolation", default: .process) { HookIsolation(rawValue: $0) },
            workerCount: try settings.value(workers, "workers", default: ProcessInfo.processInfo.activeProcessorCount) { Int($0) },
            workerMemoryMegabytes: try settings.value(workerMemoryMb, "workerMemoryMb", default: WorkerPoolConfiguration.defaultMemoryLimitMegabytes) { Int($0) },
            quota: try settings.value(rateLimit, "rateLimit", default: "40/s,burst=80") { $0 }.rateLimitQuota())
        let apps = try StartingApps(
            registry: registry, defaultApp: try settings.value(appId, "appId", default: "dev") { $0 },
            clientKey: settings.optional(clientKey, "clientKey"), masterKey: settings.optional(masterKey, "masterKey"), serve: flags,
            otherApps: otherApps, file: file)
        let operatorKeyLine = try Self.resolveOperatorKey(settings.optional(operatorKey, "operatorKey"), registry: registry, into: &configuration)
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let confinement = Self.confinement(launcher: executable, logger: Logger(label: "cloudlet.workers"))
        let server = try CloudletApplication(
            configuration: configuration, registry: registry,
            launcher: AppLauncher(
                ownHooks: Hooks.registry(), ownExecutablePath: executable, confinement: confinement,
                longCallCores: try settings.value(longHookCpu, "longHookCpu", default: WorkerPoolConfiguration.defaultLongCallCores) {
                    Double($0).flatMap(cores)
                },
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
        warnOfKeyFlags(runningApps: server.supervisor.manifests.map(\.appId), mainApp: main.record.id, logger: Logger(label: "cloudlet"))
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
                  master key: \(main.masterKey ?? "kept hashed in host.sqlite; make a new one with: cloudlet apps rotate-key \(main.record.id) master")
                  operator key: \(operatorKeyLine)
                  data:       \(configuration.dataDirectory)
                  descriptors: limit \(descriptors.after)\(raised), up to \(server.maximumConnections) connections, \
                \(configuration.connections.maximumConnectionsPerAddress) from one address
                \(apps.alsoServing)
                """.utf8))
        }.runService()
    }

    /// Sets the operator key: the one given (whose hash is then kept), else the one kept, else a new
    /// one, kept hashed. Answers what the banner says about it.
    static func resolveOperatorKey(_ given: String?, registry: AppRegistry, into configuration: inout ServerConfiguration) throws -> String {
        if let given {
            configuration.operatorKey = OperatorKey(given)
            try registry.setOperatorKey(OperatorKey(given))
            return "as given"
        }
        if try registry.operatorKey() != nil { return "kept hashed in host.sqlite" }
        let key = AppKeys.randomKey()
        try registry.setOperatorKey(OperatorKey(key))
        return "\(key)  (shown this once: only its hash is kept)"
    }
}

extension SQLiteObjectStorage.Durability: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}

/// `value` as a number of cores, if it is one: finite, 0 or more.
private func cores(_ value: Double) -> Double? {
    value >= 0 && value.isFinite ? value : nil
}
