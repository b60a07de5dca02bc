import Cloudlet
import Foundation

/// The sessions behind every authenticated request: what a token stands for, answered from the
/// app's ``SessionCache`` when it can be, and the writes that start and end sessions, each of
/// which tells the cache what it ended.
extension UserAccounts {
    /// The caller that a session token stands for: its user and the user's roles, inherited ones
    /// included (``UserRoles``). Throws 209 for an unknown, revoked (deleted) or expired token.
    public func caller(sessionToken: String, installationId: String?, requestId: String) async throws -> Caller {
        try await caller(sessionTokenHash: SessionToken.hash(sessionToken), installationId: installationId, requestId: requestId)
    }

    /// ``caller(sessionToken:installationId:requestId:)`` for the token whose SHA-256 is
    /// `tokenHash`: for a caller that keeps the hash (a LiveQuery subscription, asking at each event).
    package func caller(sessionTokenHash tokenHash: String, installationId: String?, requestId: String) async throws -> Caller {
        let session = try await cachedSession(tokenHash)
        return Caller(
            userId: session.userId, roles: session.roles, sessionTokenHash: tokenHash, isMaster: false,
            installationId: installationId ?? session.installationId, requestId: requestId)
    }

    /// The session of `tokenHash` with its user's roles: from the cache, or read from the store
    /// (and then kept, unless an invalidation came while it was read).
    private func cachedSession(_ tokenHash: String) async throws -> CachedSession {
        let cache = app.sessionCache
        let generation: UInt64
        switch cache.lookup(tokenHash, now: app.clock.now) {
        case .cached(let session): return session
        case .missing(let current): generation = current
        }
        guard let record = try await app.stores.accounts.session(tokenHash: tokenHash) else {
            throw ParseError(code: 209, message: "Invalid session token")
        }
        guard record.expiresAt > app.clock.now else { throw ParseError(code: 209, message: "Session token is expired.") }
        let session = CachedSession(
            userId: record.userId, installationId: record.installationId, expiresAt: record.expiresAt,
            roles: try await UserRoles(app).names(ofUser: record.userId))
        cache.store(session, for: tokenHash, generation: generation, now: app.clock.now)
        return session
    }

    /// Stores `session`, which ends its user's other sessions from the same installation (as
    /// Parse does); those leave the cache.
    func insertSession(_ session: SessionRecord) async throws {
        defer { if session.installationId != nil { app.sessionCache.invalidate(.user(id: session.userId)) } }
        try await app.stores.accounts.insertSession(session)
    }

    /// Ends the session whose token hashes to `tokenHash`, in the store and the cache; returns
    /// whether the store had it.
    func deleteSession(tokenHash: String) async throws -> Bool {
        defer { app.sessionCache.invalidate(.session(tokenHash: tokenHash)) }
        return try await app.stores.accounts.deleteSession(tokenHash: tokenHash)
    }
}
