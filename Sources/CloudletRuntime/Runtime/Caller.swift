import Foundation

/// Who a call acts for, and under what budget: the client behind a request, or a hook calling the store.
public struct Caller: Sendable, Hashable {
    /// The user's id, when a session came with the request.
    public var userId: String?
    /// The names of the roles the user belongs to (from `_Role`).
    public var roles: [String]
    /// The SHA-256 of the session token the call came with, if any.
    public var sessionTokenHash: String?
    /// Whether the call holds the master key (no ACL applies).
    public var isMaster: Bool
    /// The device's installation id, if sent.
    public var installationId: String?
    /// The client request this call belongs to.
    public var requestId: String
    /// For calls made from inside a hook: the hook's deadline, which nested hooks may not outlive.
    public var deadline: Date?
    /// How many hooks deep this call is (0 for a client request).
    public var depth: Int
    /// For the store calls of a before hook: where the push jobs it records wait for its write.
    public var heldPushJobs: PushJobBuffer?
    /// For the store calls of a job: the `_JobStatus` id of its run, where its progress goes.
    public var jobRun: String?

    public init(
        userId: String? = nil, roles: [String] = [], sessionTokenHash: String? = nil, isMaster: Bool,
        installationId: String? = nil, requestId: String, deadline: Date? = nil, depth: Int = 0
    ) {
        self.userId = userId
        self.roles = roles
        self.sessionTokenHash = sessionTokenHash
        self.isMaster = isMaster
        self.installationId = installationId
        self.requestId = requestId
        self.deadline = deadline
        self.depth = depth
    }

    /// The ACL entries that apply to this caller: `*`, the user's id and `role:<name>` for each of
    /// the user's roles. Nil for the master key.
    public var aclIdentities: [String]? {
        isMaster ? nil : ["*"] + (userId.map { [$0] } ?? []) + roles.map { "role:" + $0 }
    }

    /// The same caller without a before hook's push buffer: for calls that set off writes of their own.
    var writingOnItsOwn: Caller {
        var caller = self
        caller.heldPushJobs = nil
        return caller
    }

    /// The same caller holding the master key.
    public var asMaster: Caller {
        var caller = self
        caller.isMaster = true
        return caller
    }
}
