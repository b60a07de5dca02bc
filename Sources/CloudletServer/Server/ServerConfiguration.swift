import CloudletRuntime
import CloudletSQLite
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
    /// The PostgreSQL database several nodes share (`postgres://user:password@host:5432/db`, TLS
    /// as its `sslmode` asks): the registry and every app's data live there, and the data folder
    /// keeps only what is this node's own (its workers' folders). Default nil: SQLite files in the
    /// data folder.
    public var database: String?
    /// How many nodes serve the apps of ``database``: while the database cannot be reached, each
    /// node admits this share of every rate limit quota (see ``RateLimitStore``). Default 1.
    public var nodes = 1
    /// Path prefix of the REST API. Default `/parse`.
    public var mountPath: String
    /// Largest request body accepted; larger ones get 413. Default 1 MiB.
    public var maximumBodyBytes: Int
    /// How hard commits are pushed to disk. Default ``SQLiteAppDatabase/Durability/normal``.
    public var durability: SQLiteAppDatabase.Durability
    /// bcrypt cost for passwords. Default 10, as Parse Server; tests may lower it to 4 for speed.
    public var passwordHashCost: UInt8
    /// Proxies whose `X-Forwarded-For` names the client (for login throttling). Default none: the
    /// socket's peer is the client.
    public var trustedProxies: TrustedProxies
    /// The most bytes one request may read and answer (objects found, copies made by `include`);
    /// past it the request answers 154 (HTTP 400). Default 16 MiB.
    public var maximumResponseBytes: Int
    /// The largest object stored, as JSON of its fields and ACL, after field operations; past it a
    /// write answers 116 (HTTP 413). Default 1 MiB.
    public var maximumObjectBytes: Int
    /// The key that opens the admin API. Default nil: the one kept in the registry, if any (else the
    /// admin API refuses every request).
    public var operatorKey: OperatorKey?
    /// How many hook runs each app's hook log keeps, the newest. Default 10,000.
    public var hookRunRetention: Int
    /// The server's address as clients reach it (such as `https://api.example.com`), which file URLs
    /// start with. Default nil: the address the server listens on (see ``ServerOrigin``).
    public var publicURL: String?
    /// The free space uploads leave on the data folder's disk: past it they answer 413 with code 130
    /// and `/ready` reports low disk. Default 1 GiB (``FreeDiskFloor/defaultFloorBytes``); 0 for none.
    public var minimumFreeDiskBytes: Int64 = FreeDiskFloor.defaultFloorBytes
    /// How the apps' queued push deliveries are worked through (retries, fan-out pages).
    public var pushDelivery = PushDeliveryConfiguration()
    /// The bounds on connections, their timeouts and the descriptors kept in reserve.
    public var connections = ConnectionLimits()
    /// How the apps' queued work (after hooks, job runs, push deliveries) is claimed and run.
    public var work = WorkSettings()
    /// Where LiveQuery WebSockets are accepted, and the bounds each app and connection keeps to.
    public var liveQuery = LiveQueryServerSettings()
    /// Where Apple's and Google's identity token keys are fetched: the providers' own URLs. Tests
    /// point them at stand-ins.
    public var identityProviders = IdentityProviderEndpoints()

    public init(
        host: String = "127.0.0.1", port: Int = 1337, dataDirectory: String = "./data", mountPath: String = "/parse",
        maximumBodyBytes: Int = 1 << 20, durability: SQLiteAppDatabase.Durability = .normal,
        passwordHashCost: UInt8 = 10, maximumResponseBytes: Int = ReadBudget.defaultMaximumBytes,
        maximumObjectBytes: Int = SQLiteAppDatabase.defaultMaximumObjectBytes, trustedProxies: TrustedProxies = .none,
        operatorKey: OperatorKey? = nil, hookRunRetention: Int = 10_000
    ) {
        self.operatorKey = operatorKey
        self.hookRunRetention = hookRunRetention
        self.trustedProxies = trustedProxies
        self.passwordHashCost = passwordHashCost
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumObjectBytes = maximumObjectBytes
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.mountPath = mountPath
        self.maximumBodyBytes = maximumBodyBytes
        self.durability = durability
    }

    /// The floor kept free on the data folder's disk.
    public var freeDiskFloor: FreeDiskFloor {
        FreeDiskFloor(folder: dataDirectory, floorBytes: minimumFreeDiskBytes)
    }

    /// The mount path with one leading `/` and no trailing one (`""` for the root).
    public var normalizedMountPath: String {
        Self.normalizedPath(mountPath)
    }

    /// `path` with one leading `/`, no trailing one and no empty segments; "" for the root.
    static func normalizedPath(_ path: String) -> String {
        let trimmed = path.split(separator: "/").joined(separator: "/")
        return trimmed.isEmpty ? "" : "/" + trimmed
    }
}

/// An app to host whose hook executor the embedding code makes: its id, its hook code and,
/// optionally, fixed keys. It is made sure to exist in the registry.
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
    /// The fields only their owner and the master key may read or query. Default ``ProtectedFields/standard``.
    public var protectedFields: ProtectedFields

    public init(
        id: String, executor: any HookExecutor, clientKey: String? = nil, masterKey: String? = nil, services: [any Service] = [],
        rateLimits: RateLimitPolicy = .off, protectedFields: ProtectedFields = .standard
    ) {
        self.rateLimits = rateLimits
        self.protectedFields = protectedFields
        self.id = id
        self.executor = executor
        self.clientKey = clientKey
        self.masterKey = masterKey
        self.services = services
    }
}
