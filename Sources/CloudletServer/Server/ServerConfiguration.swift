import ServiceLifecycle

/// How a Cloudlet server runs. Every member has a documented default; the CLI fills it from flags
/// and `CLOUDLET_*` environment variables.
public struct ServerConfiguration: Sendable {
    /// Address to listen on. Default `127.0.0.1`.
    public var host: String
    /// Port to listen on. Default `1337`, as Parse Server; `0` picks a free port.
    public var port: Int
    /// Folder for the databases: `host.sqlite` and `apps/<app id>.sqlite`. Default `./data`.
    public var dataDirectory: String
    /// Path prefix of the REST API. Default `/parse`.
    public var mountPath: String
    /// Largest request body accepted; larger ones get 413. Default 1 MiB.
    public var maximumBodyBytes: Int
    /// How hard commits are pushed to disk. Default ``SQLiteObjectStorage/Durability/normal``.
    public var durability: SQLiteObjectStorage.Durability
    /// bcrypt cost for passwords. Default 10, as Parse Server; tests may lower it to 4 for speed.
    public var passwordHashCost: UInt8
    /// Proxies whose `X-Forwarded-For` names the client (for login throttling). Default none: the
    /// socket's peer is the client.
    public var trustedProxies: TrustedProxies
    /// The key that opens `/metrics` and the hook logs API. Default none: both refuse every caller.
    public var operatorKey: OperatorKey?
    /// How many hook runs each app's hook log keeps, the newest. Default 10,000.
    public var hookRunRetention: Int

    public init(
        host: String = "127.0.0.1", port: Int = 1337, dataDirectory: String = "./data", mountPath: String = "/parse",
        maximumBodyBytes: Int = 1 << 20, durability: SQLiteObjectStorage.Durability = .normal,
        passwordHashCost: UInt8 = 10, trustedProxies: TrustedProxies = .none, operatorKey: OperatorKey? = nil,
        hookRunRetention: Int = 10_000
    ) {
        self.operatorKey = operatorKey
        self.hookRunRetention = hookRunRetention
        self.trustedProxies = trustedProxies
        self.passwordHashCost = passwordHashCost
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.mountPath = mountPath
        self.maximumBodyBytes = maximumBodyBytes
        self.durability = durability
    }

    /// The mount path with one leading `/` and no trailing one (`""` for the root).
    public var normalizedMountPath: String {
        let trimmed = mountPath.split(separator: "/").joined(separator: "/")
        return trimmed.isEmpty ? "" : "/" + trimmed
    }
}

/// An app to host: its id, its hook code and, optionally, fixed keys.
public struct AppDefinition: Sendable {
    /// The app id.
    public var id: String
    /// Where the app's hooks run.
    public var executor: any HookExecutor
    /// A fixed client key; nil keeps the stored one (random on first start).
    public var clientKey: String?
    /// A fixed master key; nil keeps the stored one (random on first start).
    public var masterKey: String?
    /// Services the app's hooks need while the server runs, such as its ``WorkerPool``. Default none.
    public var services: [any Service]
    /// The app's rate limits. Default: none on requests (``RateLimitPolicy/off``).
    public var rateLimits: RateLimitPolicy

    public init(
        id: String, executor: any HookExecutor, clientKey: String? = nil, masterKey: String? = nil, services: [any Service] = [],
        rateLimits: RateLimitPolicy = .off
    ) {
        self.rateLimits = rateLimits
        self.id = id
        self.executor = executor
        self.clientKey = clientKey
        self.masterKey = masterKey
        self.services = services
    }
}
