import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `cloudlet serve`: runs the server with the app's hooks. Each flag can also come from an
/// environment variable `CLOUDLET_<NAME>`; the flag wins.
struct ServeCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "serve", abstract: "Serve the app's hooks and the Parse REST API.")
    }

    @Option(help: "Address to listen on (CLOUDLET_HOST). Default 127.0.0.1.") var host: String?
    @Option(help: "Port to listen on, 0 for any free one (CLOUDLET_PORT). Default 1337.") var port: Int?
    @Option(help: "Folder for the databases (CLOUDLET_DATA). Default ./data.") var data: String?
    @Option(help: "Path prefix of the REST API (CLOUDLET_MOUNT_PATH). Default /parse.") var mountPath: String?
    @Option(help: "App id clients send (CLOUDLET_APP_ID). Default dev.") var appId: String?
    @Option(help: "Fixed client key (CLOUDLET_CLIENT_KEY). Default: random on first start, then kept.") var clientKey: String?
    @Option(help: "Fixed master key (CLOUDLET_MASTER_KEY). Default: random on first start, then kept.") var masterKey: String?
    @Option(help: "Largest request body in bytes (CLOUDLET_MAX_BODY_BYTES). Default 1048576.") var maxBodyBytes: Int?
    @Option(help: "Commit durability, normal or full (CLOUDLET_DURABILITY). Default normal.") var durability: SQLiteObjectStorage.Durability?
    @Option(help: "Log level: trace, debug, info, notice, warning, error (CLOUDLET_LOG_LEVEL). Default info.") var logLevel: Logger.Level?
    @Option(help: "Where hooks run: process or in-process (CLOUDLET_ISOLATION). Default process.") var isolation: Isolation?
    @Option(help: "Worker processes per app (CLOUDLET_WORKERS). Default: the number of cores.") var workers: Int?
    @Option(help: "Memory limit of each worker in MiB, 0 for none (CLOUDLET_WORKER_MEMORY_MB). Default 512.") var workerMemoryMb: Int?
    @Option(
        name: .customLong("trusted-proxy"),
        help: "A proxy (address or network such as 10.0.0.0/8) whose X-Forwarded-For names the client; repeatable (CLOUDLET_TRUSTED_PROXIES, comma-separated). Default none.")
    var trustedProxies: [String] = []
    @Option(name: .customLong("app"), help: "Also host app <id> whose hooks are in <executable>, as id=executable; repeatable.")
    var otherApps: [HostedExecutable] = []
    @Option(help: "Log line format, logfmt or json (CLOUDLET_LOG_FORMAT). Default logfmt.") var logFormat: LogFormat?
    @Option(help: "Hook runs each app's hook log keeps, the newest (CLOUDLET_HOOK_LOG_RETENTION). Default 10000.") var hookLogRetention: Int?
    @Option(help: "Key for /metrics and the hook logs API (CLOUDLET_OPERATOR_KEY). Default none: they refuse every caller.")
    var operatorKey: String?

    func run() async throws {
        let environment = Settings(ProcessInfo.processInfo.environment)
        let level = try environment.value(logLevel, "LOG_LEVEL", default: Logger.Level.info) { Logger.Level(rawValue: $0) }
        let format = try environment.value(logFormat, "LOG_FORMAT", default: .logfmt) { LogFormat(rawValue: $0) }
        LoggingSystem.bootstrap(
            { label, provider in
                var handler = StructuredLogHandler(label: label, format: format, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: RequestIdentity.metadataProvider)
        let metrics = CloudletMetrics()
        let configuration = ServerConfiguration(
            host: try environment.value(host, "HOST", default: "127.0.0.1") { $0 },
            port: try environment.value(port, "PORT", default: 1337) { Int($0) },
            dataDirectory: try environment.value(data, "DATA", default: "./data") { $0 },
            mountPath: try environment.value(mountPath, "MOUNT_PATH", default: "/parse") { $0 },
            maximumBodyBytes: try environment.value(maxBodyBytes, "MAX_BODY_BYTES", default: 1 << 20) { Int($0) },
            durability: try environment.value(durability, "DURABILITY", default: .normal) {
                SQLiteObjectStorage.Durability(rawValue: $0)
            },
            trustedProxies: try TrustedProxies(
                environment.value(trustedProxies.isEmpty ? nil : trustedProxies, "TRUSTED_PROXIES", default: []) {
                    $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                }),
            operatorKey: environment.optional(operatorKey, "OPERATOR_KEY").map(OperatorKey.init),
            hookRunRetention: try environment.value(hookLogRetention, "HOOK_LOG_RETENTION", default: 10_000) { Int($0) })
        let workerSettings = WorkerSettings(
            isolation: try environment.value(isolation, "ISOLATION", default: .process) { Isolation(rawValue: $0) },
            workerCount: try environment.value(workers, "WORKERS", default: ProcessInfo.processInfo.activeProcessorCount) { Int($0) },
            memoryLimitMegabytes: try environment.value(workerMemoryMb, "WORKER_MEMORY_MB", default: 512) { Int($0) },
            metrics: metrics)
        let app = try await workerSettings.definition(
            id: try environment.value(appId, "APP_ID", default: "dev") { $0 }, registry: Hooks.registry(),
            clientKey: environment.optional(clientKey, "CLIENT_KEY"), masterKey: environment.optional(masterKey, "MASTER_KEY"))
        var apps = [app]
        for other in otherApps {
            apps.append(try await workerSettings.definition(id: other.appId, executablePath: other.executablePath))
        }
        let pools = apps.flatMap(\.services).compactMap { $0 as? WorkerPool }
        if !pools.isEmpty { apps[0].services.append(ReloadOnHangup(pools: pools, logger: Logger(label: "cloudlet.workers"))) }
        let server = try CloudletApplication(configuration: configuration, apps: apps, logger: Logger(label: "cloudlet"), metrics: metrics)
        let hosted = server.apps.app(app.id)!
        let alsoServing = otherApps.compactMap { server.apps.app($0.appId) }.map {
            "  also serving app \"\($0.id)\": client key \($0.keys.clientKey), master key \($0.keys.masterKey)\n"
        }.joined()
        let mount = configuration.normalizedMountPath
        try await server.application { channel in
            let port = channel.localAddress?.port ?? configuration.port
            FileHandle.standardOutput.write(
                Data(
                    """
                Cloudlet is serving app "\(hosted.id)" at http://\(configuration.host):\(port)\(mount)
                  client key: \(hosted.keys.clientKey)
                  master key: \(hosted.keys.masterKey)
                  data:       \(configuration.dataDirectory)
                \(alsoServing)
                """.utf8))
        }.runService()
    }
}

/// Settings from `CLOUDLET_*` environment variables, under the flags.
struct Settings {
    let environment: [String: String]

    init(_ environment: [String: String]) {
        self.environment = environment
    }

    /// The flag if given, else the variable `CLOUDLET_<name>` read by `parse`, else `fallback`.
    func value<Value>(_ flag: Value?, _ name: String, default fallback: Value, parse: (String) -> Value?) throws -> Value {
        if let flag { return flag }
        guard let text = environment["CLOUDLET_" + name] else { return fallback }
        guard let value = parse(text) else { throw ValidationError("CLOUDLET_\(name) has an invalid value: \(text)") }
        return value
    }

    /// The flag if given, else the variable `CLOUDLET_<name>`, else nil.
    func optional(_ flag: String?, _ name: String) -> String? {
        flag ?? environment["CLOUDLET_" + name]
    }
}

extension SQLiteObjectStorage.Durability: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}
