import NIOCore

/// One hook call sent to a worker.
public struct WireInvocation: Sendable, Equatable {
    /// Chosen by the host; unique among the calls in flight on one connection.
    public var id: UInt64
    /// The absolute deadline, in milliseconds since the Unix epoch.
    public var deadlineMilliseconds: Int64
    /// The kind of hook, by the number the SDK's table of kinds gives it.
    public var kind: UInt8
    /// The class, or the function's name.
    public var name: String
    /// The app the call belongs to.
    public var appId: String
    /// The client request the call belongs to.
    public var requestId: String
    /// The caller's user id, if any.
    public var userId: String?
    /// The names of the roles the caller's user holds, inherited ones included.
    public var roles: [String]
    /// Whether the call holds the master key.
    public var isMaster: Bool
    /// The calling device's installation id, if any.
    public var installationId: String?
    /// For after hooks: the event's id (its queued row's); for jobs: the run's `_JobStatus` id.
    public var eventId: String?
    /// The object (triggers) or the parameters (functions), as JSON.
    public var input: ByteBuffer
    /// For saves: the stored object before this save, as JSON.
    public var original: ByteBuffer?

    public init(
        id: UInt64, deadlineMilliseconds: Int64, kind: UInt8, name: String, appId: String, requestId: String,
        userId: String?, isMaster: Bool, installationId: String?, eventId: String?, input: ByteBuffer, original: ByteBuffer?,
        roles: [String] = []
    ) {
        self.id = id
        self.deadlineMilliseconds = deadlineMilliseconds
        self.kind = kind
        self.name = name
        self.appId = appId
        self.requestId = requestId
        self.userId = userId
        self.roles = roles
        self.isMaster = isMaster
        self.installationId = installationId
        self.eventId = eventId
        self.input = input
        self.original = original
    }
}

/// What a worker says once it is connected: who it is and which hooks it serves.
public struct WireHello: Sendable, Equatable {
    /// One hook the worker serves.
    public struct Hook: Sendable, Equatable {
        public var kind: UInt8
        public var name: String
        public var timeLimitMilliseconds: Int64
        /// The rate limit the hook declares, if any.
        public var rateLimit: RateLimit?
        /// For an after hook: whether it runs after the response is sent.
        public var runsAfterResponse: Bool

        public init(
            kind: UInt8, name: String, timeLimitMilliseconds: Int64, rateLimit: RateLimit? = nil, runsAfterResponse: Bool = false
        ) {
            self.kind = kind
            self.name = name
            self.timeLimitMilliseconds = timeLimitMilliseconds
            self.rateLimit = rateLimit
            self.runsAfterResponse = runsAfterResponse
        }
    }

    /// A hook's declared rate limit: `count` calls per window, counted by `scope`
    /// (1 global, 2 per address, 3 per user, 4 per session; 0 on the wire means none).
    public struct RateLimit: Sendable, Equatable {
        public var scope: UInt8
        public var count: UInt32
        public var windowMilliseconds: Int64

        public init(scope: UInt8, count: UInt32, windowMilliseconds: Int64) {
            self.scope = scope
            self.count = count
            self.windowMilliseconds = windowMilliseconds
        }
    }

    /// The worker's process id, by which the host knows which child it spawned is speaking.
    public var processId: Int32
    /// Every hook the worker's module registers.
    public var hooks: [Hook]

    public init(processId: Int32, hooks: [Hook]) {
        self.processId = processId
        self.hooks = hooks
    }
}

/// The store operations a hook may call.
public enum WireStoreOperation: UInt8, Sendable, Hashable {
    /// `{"className", "id"}` → the object or `null`.
    case get = 1
    /// A query (`{"className", "where", "order", "limit", "skip", "keys", "include", "excludeKeys"}`) → an array of objects.
    case find = 2
    /// A query → a number.
    case count = 3
    /// `{"className", "object"}` → the object as saved.
    case save = 4
    /// `{"className", "id"}` → `null`.
    case delete = 5
    /// `{"name", "params"}` → the function's result.
    case call = 6
    /// `{"message"}` → `null`: a job reports its progress, kept on its `_JobStatus`.
    case progress = 7
    /// `{}` → the app's config parameters the caller may read, as a JSON object.
    case config = 8
}

/// A store call from a hook, travelling back to the host on the worker's connection.
public struct WireStoreCall: Sendable, Equatable {
    /// Chosen by the worker; unique among its store calls in flight.
    public var id: UInt64
    /// The invocation whose hook made the call; the host acts with that invocation's caller and deadline.
    public var invocationId: UInt64
    /// What to do.
    public var operation: WireStoreOperation
    /// Whether the hook called through `store.asMaster`.
    public var asMaster: Bool
    /// The operation's arguments, as a JSON object.
    public var arguments: ByteBuffer

    public init(id: UInt64, invocationId: UInt64, operation: WireStoreOperation, asMaster: Bool, arguments: ByteBuffer) {
        self.id = id
        self.invocationId = invocationId
        self.operation = operation
        self.asMaster = asMaster
        self.arguments = arguments
    }
}

/// A line a hook logged through `request.logger`.
public struct WireLogRecord: Sendable, Equatable {
    /// The invocation whose hook logged it.
    public var invocationId: UInt64
    /// swift-log's level, by its position: 0 trace … 6 critical.
    public var level: UInt8
    /// The message.
    public var message: String
    /// The metadata, as a JSON object of strings.
    public var metadata: ByteBuffer

    public init(invocationId: UInt64, level: UInt8, message: String, metadata: ByteBuffer) {
        self.invocationId = invocationId
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}
