import CloudletRuntime

/// How the server serves LiveQuery (Parse's realtime events over WebSocket) and the bounds it keeps
/// each app and connection to. Every member has a documented default; `serve` fills them from its
/// flags, `CLOUDLET_*` variables and config-file members. Which classes publish events is each
/// app's own setting (`liveQuery.classNames`).
public struct LiveQueryServerSettings: Sendable, Equatable {
    /// A path besides the REST API's mount path (where SDKs connect by default, `ws://host:1337/parse`)
    /// where WebSockets are accepted, such as `/live`. Default nil: the mount path only.
    public var path: String?
    /// The most LiveQuery connections one app may have open at once; past it a `connect` is refused
    /// with code 155 (`reconnect` true, so SDKs try again later). Default 1,000.
    public var maximumConnectionsPerApp: Int
    /// The most subscriptions one connection may hold; past it a `subscribe` is refused with 155.
    /// Default 100.
    public var maximumSubscriptionsPerConnection: Int
    /// The pace of messages one connection may send: past it a message is refused with 155 and
    /// not read. Default 20 a second with bursts of 100.
    public var messagesPerConnection: RateLimitQuota
    /// The most messages waiting to be written to one connection; past it (or past
    /// ``maximumQueuedBytes``) the client is not reading its events, and is disconnected. Default 1,000.
    public var maximumQueuedMessages: Int
    /// The most bytes waiting to be written to one connection. Default 4 MiB.
    public var maximumQueuedBytes: Int
    /// The largest message (a frame, or a message in fragments) a client may send; a larger one
    /// closes the connection with WebSocket code 1009. Default 64 KiB.
    public var maximumMessageBytes: Int
    /// How long a new WebSocket may go without a `connect` that is accepted before it is closed.
    /// Default 5 s.
    public var connectTimeout: Duration
    /// How often the server pings each connection; one that has not answered the previous ping by
    /// then is closed. Default 15 s.
    public var pingInterval: Duration

    public init(
        path: String? = nil, maximumConnectionsPerApp: Int = 1_000, maximumSubscriptionsPerConnection: Int = 100,
        messagesPerConnection: RateLimitQuota = LiveQueryServerSettings.defaultMessagesPerConnection, maximumQueuedMessages: Int = 1_000,
        maximumQueuedBytes: Int = 4 << 20, maximumMessageBytes: Int = 64 << 10, connectTimeout: Duration = .seconds(5),
        pingInterval: Duration = .seconds(15)
    ) {
        self.path = path
        self.maximumConnectionsPerApp = maximumConnectionsPerApp
        self.maximumSubscriptionsPerConnection = maximumSubscriptionsPerConnection
        self.messagesPerConnection = messagesPerConnection
        self.maximumQueuedMessages = maximumQueuedMessages
        self.maximumQueuedBytes = maximumQueuedBytes
        self.maximumMessageBytes = maximumMessageBytes
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
    }

    /// 20 messages a second from one connection, with bursts of 100.
    public static let defaultMessagesPerConnection = RateLimitQuota(perSecond: 20, burst: 100)

    /// ``path`` with one leading `/` and no trailing one (`/` for the root); nil when not set.
    var normalizedPath: String? {
        path.map { ServerConfiguration.normalizedPath($0) }.map { $0.isEmpty ? "/" : $0 }
    }
}
