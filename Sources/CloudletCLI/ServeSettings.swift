import Cloudlet
import CloudletServer
import Foundation

/// The settings of `cloudlet serve`, each a flag, a `CLOUDLET_<NAME>` variable and a config-file
/// member, with its help and its default: the defaults of ``ServerConfiguration``,
/// ``ConnectionLimits`` and ``AppSettings``, read off them. `serve --help`, the config file's
/// members and the reading of each value all come from this table.
enum ServeSettings {
    private static let server = ServerConfiguration()
    private static let connections = ConnectionLimits()
    private static let anyNumber = 1...Int.max

    static let host = Setting("host", .text, "Address to listen on", default: server.host)
    static let port = Setting("port", .integer(0...65_535), "Port to listen on, 0 for any free one", default: String(server.port))
    static let data = Setting("data", .text, "Folder for the databases", default: server.dataDirectory)
    static let database = Setting(
        "database", .text,
        "PostgreSQL database several nodes share, as postgres://user:password@host:5432/db?sslmode=require: the registry and every app's data in it",
        defaultText: "none: SQLite files in the data folder", isSecret: true)
    static let nodes = Setting(
        "nodes", .integer(1...1_000), "How many nodes share the database: while it cannot be reached, each admits this share of every rate limit",
        default: String(server.nodes))
    static let mountPath = Setting("mountPath", .text, "Path prefix of the REST API", default: server.mountPath)
    static let appId = Setting("appId", .text, "App id clients send", default: "dev")
    static let clientKey = Setting(
        "clientKey", .text, "Fixed client key", defaultText: "random on first start, then kept", isSecret: true)
    static let masterKey = Setting(
        "masterKey", .text, "Fixed master key", defaultText: "random on first start, then kept hashed", isSecret: true)
    static let maxBodyBytes = Setting("maxBodyBytes", .integer(anyNumber), "Largest request body in bytes", default: String(server.maximumBodyBytes))
    static let maxResponseBytes = Setting(
        "maxResponseBytes", .integer(anyNumber), "Most bytes one request may read and answer", default: String(server.maximumResponseBytes))
    static let maxObjectBytes = Setting(
        "maxObjectBytes", .integer(anyNumber), "Largest stored object in bytes", default: String(server.maximumObjectBytes))
    static let durability = Setting("durability", .text, "Commit durability, normal or full", default: server.durability.rawValue)
    static let logLevel = Setting(
        "logLevel", .text, "Log level: trace, debug, info, notice, warning, error, critical", default: "info")
    static let logFormat = Setting("logFormat", .text, "Log line format, logfmt or json", default: LogFormat.logfmt.rawValue)
    static let longHookCpu = Setting(
        "longHookCpu", .number,
        "CPU, in cores, each app's workers may take together while their hooks run past 25 ms, where cgroups can be used; 0 for no cap",
        default: String(WorkerPoolConfiguration.defaultLongCallCores))
    static let operatorKey = Setting(
        "operatorKey", .text, "The key of the admin API, /metrics and the hook logs",
        defaultText: "generated on first start, printed once, kept hashed", isSecret: true)
    static let trustedProxies = Setting(
        "trustedProxies", flag: "trusted-proxy", .list,
        "A proxy (address or network such as 10.0.0.0/8) whose X-Forwarded-For names the client; repeatable, or comma-separated")
    static let publicUrl = Setting(
        "publicUrl", .text, "The server's address as clients reach it, which file URLs start with",
        defaultText: "http://<host>:<port> it listens on")
    static let hookLogRetention = Setting(
        "hookLogRetention", .integer(anyNumber), "Hook runs each app's hook log keeps, the newest", default: String(server.hookRunRetention))
    static let minFreeDiskMb = Setting(
        "minFreeDiskMb", .integer(0...Int.max), "MiB uploads leave free on the data folder's disk, 0 for none",
        default: String(server.minimumFreeDiskBytes >> 20))
    static let maxConnections = Setting(
        "maxConnections", .integer(anyNumber), "Most connections open at once", defaultText: "half the descriptor limit")
    static let maxConnectionsPerAddress = Setting(
        "maxConnectionsPerAddress", .integer(anyNumber), "Most connections open at once from one client address",
        default: String(connections.maximumConnectionsPerAddress))
    static let idleTimeoutMs = Setting(
        "idleTimeoutMs", .integer(anyNumber), "Milliseconds a connection may wait for its next request",
        default: String(connections.idleTimeout.wholeMilliseconds))
    static let headerTimeoutMs = Setting(
        "headerTimeoutMs", .integer(anyNumber), "Milliseconds a request's head may take once begun",
        default: String(connections.headerTimeout.wholeMilliseconds))
    static let minBodyRate = Setting(
        "minBodyRate", .integer(anyNumber), "Slowest average rate of a request body in bytes a second, after the header timeout",
        default: String(connections.minimumBodyBytesPerSecond))
    static let descriptorReserve = Setting(
        "descriptorReserve", .integer(0...Int.max), "File descriptors never given to connections or apps",
        default: String(connections.descriptorReserve))
    static let maxRequestsPerAddress = Setting(
        "maxRequestsPerAddress", .text, "Pace of requests from one client address, as N/s,burst=M or off",
        default: RateLimitPolicy.text(of: connections.requestsPerAddress))

    private static let liveQuery = LiveQueryServerSettings()
    static let liveQueryPath = Setting(
        "liveQueryPath", .text, "A path besides the mount path where LiveQuery WebSockets are accepted, such as /live",
        defaultText: "none: the mount path only")
    static let liveQueryMaxConnections = Setting(
        "liveQueryMaxConnections", .integer(anyNumber), "Most LiveQuery connections one app may have open at once",
        default: String(liveQuery.maximumConnectionsPerApp))
    static let liveQueryMaxSubscriptions = Setting(
        "liveQueryMaxSubscriptions", .integer(anyNumber), "Most subscriptions one LiveQuery connection may hold",
        default: String(liveQuery.maximumSubscriptionsPerConnection))
    static let liveQueryMessageRate = Setting(
        "liveQueryMessageRate", .text, "Pace of messages one LiveQuery connection may send, as N/s,burst=M",
        default: RateLimitPolicy.text(of: liveQuery.messagesPerConnection))
    static let liveQueryMaxMessageBytes = Setting(
        "liveQueryMaxMessageBytes", .integer(1_024...Int.max), "Largest message a LiveQuery client may send, in bytes",
        default: String(liveQuery.maximumMessageBytes))
    static let liveQueryMaxQueuedBytes = Setting(
        "liveQueryMaxQueuedBytes", .integer(anyNumber), "Most bytes waiting to be written to one LiveQuery connection; past it the client is disconnected",
        default: String(liveQuery.maximumQueuedBytes))
    static let liveQueryConnectTimeoutMs = Setting(
        "liveQueryConnectTimeoutMs", .integer(anyNumber), "Milliseconds a new LiveQuery WebSocket may take to connect",
        default: String(liveQuery.connectTimeout.wholeMilliseconds))

    /// The app settings `serve` also takes (with their help and defaults from ``AppSettings/fields``):
    /// each sets the app of `--app-id` at every start; those marked set each `--app` too.
    static let appSettings: [(setting: Setting, field: AppSettingField, setsOtherApps: Bool)] = [
        app("isolation", setsOtherApps: false),
        app("workers", setsOtherApps: true, default: (String(ProcessInfo.processInfo.activeProcessorCount), "the number of cores")),
        app("workerMemoryMb", setsOtherApps: true),
        app("rateLimits.rate", member: "rateLimit", setsOtherApps: false),
    ]

    /// An app setting as `serve` read it.
    struct AppValue {
        let field: AppSettingField
        let value: ParseValue
        let setsOtherApps: Bool
    }

    /// The app settings `serve` was given, or their defaults.
    static func appValues(_ settings: SettingsReader) throws -> [AppValue] {
        try appSettings.map { setting, field, setsOtherApps in
            AppValue(field: field, value: try settings.read(setting) { AppSettingFlags.value($0, of: field) }, setsOtherApps: setsOtherApps)
        }
    }

    /// Every setting of `serve`, in the order `--help` lists them.
    static let table = SettingTable(
        entries: [
            host, port, data, database, nodes, mountPath, appId, clientKey, masterKey, maxBodyBytes, maxResponseBytes, maxObjectBytes, durability, logLevel,
            logFormat,
        ] + appSettings.map(\.setting) + [
            longHookCpu, operatorKey, trustedProxies, publicUrl, hookLogRetention, minFreeDiskMb, maxConnections, maxConnectionsPerAddress,
            idleTimeoutMs, headerTimeoutMs, minBodyRate, descriptorReserve, maxRequestsPerAddress, liveQueryPath, liveQueryMaxConnections,
            liveQueryMaxSubscriptions, liveQueryMessageRate, liveQueryMaxMessageBytes, liveQueryMaxQueuedBytes, liveQueryConnectTimeoutMs,
        ], readsEnvironment: true)

    /// The app setting `member` of ``AppSettings/fields`` or ``AppSettings/shortcuts`` as a setting of
    /// `serve` named `member` (or `serveMember`), with the app's default unless `serve` has its own.
    private static func app(
        _ member: String, member serveMember: String? = nil, setsOtherApps: Bool, default serveDefault: (value: String, text: String)? = nil
    ) -> (setting: Setting, field: AppSettingField, setsOtherApps: Bool) {
        let field = (AppSettings.fields + AppSettings.shortcuts).first { $0.member == member }!
        return (Setting(field, member: serveMember, default: serveDefault), field, setsOtherApps)
    }
}
