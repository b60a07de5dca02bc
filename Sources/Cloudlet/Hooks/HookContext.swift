import Foundation
import Logging

/// Everything a hook knows about the call it serves. One context per invocation, built by the runtime.
public struct HookContext: Sendable {
    /// The app the call belongs to.
    public let appId: String
    /// The id of the client request that led to this call; it tags every log line.
    public let requestId: String
    /// The user the call acts for, if a session token came with it.
    public let user: HookUser?
    /// Whether the call was made with the master key.
    public let isMaster: Bool
    /// The `X-Parse-Installation-Id` of the calling device, if it sent one.
    public let installationId: String?
    /// The moment by which the hook must have finished; past it the client has its timeout error.
    public let deadline: Date
    /// For after hooks: an id that stays the same if the hook runs again after a crash, so that its
    /// effects can be made idempotent. For jobs: the run's `_JobStatus` id.
    public let eventId: String?
    /// Lands in the app's hook log, tagged with app, hook and request id.
    public let logger: Logger
    /// Reads and writes the app's objects as the caller (saves through it fire their own hooks).
    public let store: any HookStore
    /// The clock the runtime keeps time with.
    public let clock: any CloudletClock

    /// Built by the runtime for each call; also by code that drives a `HookExecutor` directly, as
    /// the isolation benchmark does, outside any server.
    public init(
        appId: String, requestId: String, user: HookUser?, isMaster: Bool, installationId: String?,
        deadline: Date, eventId: String?, logger: Logger, store: any HookStore, clock: any CloudletClock
    ) {
        self.appId = appId
        self.requestId = requestId
        self.user = user
        self.isMaster = isMaster
        self.installationId = installationId
        self.deadline = deadline
        self.eventId = eventId
        self.logger = logger
        self.store = store
        self.clock = clock
    }

    /// The time left before ``deadline``.
    public var timeRemaining: Duration {
        .milliseconds(Int64(max(0, deadline.timeIntervalSince(clock.now)) * 1000))
    }
}

/// The user a hook acts for.
///
/// ```swift
/// guard request.user?.hasRole("Admins") == true else { throw HookError.unauthorized("admins only") }
/// ```
public struct HookUser: Sendable, Hashable {
    /// The user's object id.
    public let id: String
    /// The names of the `_Role`s the user holds, sorted: those whose `users` relation holds the
    /// user and every role they inherit through `roles` relations, as the server resolved them for
    /// this request (the same names its `role:` ACL entries match).
    public let roles: [String]

    /// A user known by `id`, holding the roles `roles`.
    public init(id: String, roles: [String] = []) {
        self.id = id
        self.roles = roles
    }

    /// Whether the user holds the role `name`, directly or inherited.
    public func hasRole(_ name: String) -> Bool {
        roles.contains(name)
    }
}
