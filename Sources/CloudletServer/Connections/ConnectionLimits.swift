/// How many connections the server keeps open, how long it waits on them, and how many file
/// descriptors it keeps free. Every member has a documented default; `serve` fills them from its
/// flags, `CLOUDLET_*` variables and config-file members.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections open at once; past it a new connection is answered 503 and closed.
    /// Default nil: half the process's descriptor limit (and never more than the limit less the
    /// reserve and the host's own descriptors).
    public var maximumConnections: Int?
    /// The most connections open at once from one client address (an IPv6 address's /64 network);
    /// past it a new connection from that address is answered 503 and closed. A trusted proxy's
    /// connections count only toward ``maximumConnections``. Default 128.
    public var maximumConnectionsPerAddress: Int
    /// How long a connection with no request under way may wait for the first byte of its next
    /// request before it is closed, and how long a client may leave an answer unread. Default 30 s.
    public var idleTimeout: Duration
    /// How long a request's head (request line and headers) may take once its first byte has
    /// arrived; a head still incomplete then closes the connection. Default 10 s.
    public var headerTimeout: Duration
    /// The slowest average rate, in bytes a second, at which a request's body may arrive after a
    /// grace of ``headerTimeout`` from its head; a slower body closes the connection. Default 1,024.
    public var minimumBodyBytesPerSecond: Int
    /// Descriptors never given to connections or apps: room for the files requests open, SQLite's
    /// temporary files and the runtime's own. An app is neither created nor started if it would
    /// cut into them. Default 128.
    public var descriptorReserve: Int
    /// The pace of requests from one client address (the forwarded one behind a trusted proxy),
    /// across all its connections and apps: past it, requests wait for their turn with their
    /// connection's reading paused (``AddressPacingHandler``). Default 1,000 a second with bursts
    /// of 2,000; nil paces nothing.
    public var requestsPerAddress: RateLimitQuota?

    public init(
        maximumConnections: Int? = nil, maximumConnectionsPerAddress: Int = 128, idleTimeout: Duration = .seconds(30),
        headerTimeout: Duration = .seconds(10), minimumBodyBytesPerSecond: Int = 1024, descriptorReserve: Int = 128,
        requestsPerAddress: RateLimitQuota? = ConnectionLimits.defaultRequestsPerAddress
    ) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
        self.descriptorReserve = descriptorReserve
        self.requestsPerAddress = requestsPerAddress
    }

    /// 1,000 requests a second from one address, with bursts of 2,000.
    public static let defaultRequestsPerAddress = RateLimitQuota(perSecond: 1000, burst: 2000)

    /// The bound on connections under a descriptor limit of `descriptorLimit`: ``maximumConnections``,
    /// or half the limit, and never more than the limit less the reserve and the host's own descriptors.
    func connectionBound(descriptorLimit: Int) -> Int {
        min(maximumConnections ?? descriptorLimit / 2, max(0, descriptorLimit - descriptorReserve - AppDescriptors.hostBaseline))
    }
}
