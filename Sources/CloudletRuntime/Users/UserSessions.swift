import Cloudlet
import Foundation

/// An app's `_Session` objects as Parse Server serves them (`/sessions`, `/classes/_Session`): a
/// user reads, changes and deletes only their own sessions, the master key all of them; deleting
/// one logs it out at once. Tokens are stored hashed, so a session shows its `sessionToken` only in
/// the response that creates it and to the request that presents that token.
public struct UserSessions: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The most bytes (as JSON) the fields a user sets on one session may take.
    public static let maximumFieldBytes = 4096

    /// The fields Parse sets on every session; no request sets them (but `installationId` on a
    /// create, as Parse takes it).
    static let builtInFields: Set<String> = [
        "objectId", "createdAt", "updatedAt", "user", "installationId", "sessionToken", "expiresAt", "createdWith", "restricted", "ACL",
    ]

    /// The sessions `query` finds among those `caller` may reach, and their count when `counting`.
    /// `where` may test `objectId`, `installationId` and `user` for equality; results come oldest first,
    /// each charged to `budget`. `presentedToken` (the request's own) is shown on its session.
    public func find(
        _ query: ParseQuery, counting: Bool, caller: Caller, presentedToken: String?, budget: ReadBudget
    ) async throws -> ([ParseObject], Int?) {
        guard query.order.allSatisfy({ $0 == "createdAt" }) else {
            throw ParseError.invalidQuery("_Session is ordered by createdAt only")
        }
        guard let filter = try narrowed(reach(caller), by: query.constraints) else { return ([], counting ? 0 : nil) }
        let limit = min(query.limit, StorageQuery.maximumLimit)
        let records = limit == 0 ? [] : try await app.stores.accounts.sessions(matching: filter, skip: query.skip, limit: limit)
        for record in records {
            try budget.charge(bytes: ReadBudget.storedSize(data: JSONWriter.string(.object(record.fields)), acl: nil))
        }
        let count = counting ? try await app.stores.accounts.countSessions(matching: filter) : nil
        return (records.map { object($0, presentedToken: presentedToken) }, count)
    }

    /// The session `id`, if `caller` may reach it; 101 otherwise, as for a session that does not exist.
    public func get(_ id: String, caller: Caller, presentedToken: String?) async throws -> ParseObject {
        object(try await record(id, caller: caller), presentedToken: presentedToken)
    }

    /// `GET /sessions/me`: the session whose token the request presents, with that token.
    public func current(presentedToken: String?) async throws -> ParseObject {
        guard let presentedToken else { throw ParseError(code: 209, message: "Session token required.") }
        guard let record = try await app.stores.accounts.session(tokenHash: SessionToken.hash(presentedToken)) else {
            throw ParseError(code: 209, message: "Session token not found.")
        }
        return object(record, presentedToken: presentedToken)
    }

    /// `POST /sessions`: a new session for the caller's user, with the body's own fields (and its
    /// `installationId`, if given), answered with its token. Needs a session (209).
    public func create(body: [String: ParseValue], caller: Caller) async throws -> ParseObject {
        guard let userId = caller.userId else { throw ParseError(code: 209, message: "Session token required.") }
        var body = body
        let installationId = body.removeValue(forKey: "installationId")
        if let installationId, installationId.stringValue == nil {
            throw ParseError(code: 111, message: "installationId must be a string")
        }
        let fields = try Self.applying(body, to: [:])
        return try await start(userId, origin: .create, installationId: installationId?.stringValue, fields: fields)
    }

    /// `POST /upgradeToRevocableSession`: a new session for the caller's user, answered with its
    /// token (every Cloudlet session is revocable already). Needs a session (101, as Parse answers).
    public func upgrade(caller: Caller) async throws -> ParseObject {
        guard let userId = caller.userId else { throw ParseError(code: 101, message: "invalid session") }
        return try await start(userId, origin: .upgrade, installationId: caller.installationId, fields: [:])
    }

    /// Sets the body's fields on the session `id` (`{"__op": "Delete"}` removes one); Parse's own
    /// fields are refused (105). Answers the session as it now is.
    public func update(_ id: String, body: [String: ParseValue], caller: Caller) async throws -> ParseObject {
        var record = try await record(id, caller: caller)
        record.fields = try Self.applying(body, to: record.fields)
        record.updatedAt = app.clock.now
        guard try await app.stores.accounts.updateSession(objectId: id, fields: record.fields, updatedAt: record.updatedAt) else {
            throw ParseError(code: 101, message: "Object not found.")
        }
        return object(record, presentedToken: nil)
    }

    /// Deletes the session `id`: its token stops working at once.
    public func delete(_ id: String, caller: Caller) async throws {
        let record = try await record(id, caller: caller)
        guard try await UserAccounts(app).deleteSession(tokenHash: record.tokenHash) else {
            throw ParseError(code: 101, message: "Object not found.")
        }
        app.logger.info("session deleted", metadata: ["user_id": "\(record.userId)", "request_id": "\(caller.requestId)"])
    }

    /// The sessions `caller` may reach: its user's, or all of them for the master key. Throws 209 for
    /// a caller with neither, as Parse does.
    private func reach(_ caller: Caller) throws -> SessionFilter {
        if caller.isMaster { return SessionFilter() }
        guard let userId = caller.userId else { throw ParseError(code: 209, message: "Invalid session token") }
        return SessionFilter(userId: userId)
    }

    /// `filter` narrowed by a query's equality tests, or nil when they contradict it (no results).
    private func narrowed(_ filter: SessionFilter, by constraints: [String: ParseValue]) throws -> SessionFilter? {
        var filter = filter
        for (key, value) in constraints {
            let member: WritableKeyPath<SessionFilter, String?>
            let wanted: String?
            switch key {
            case "objectId": (member, wanted) = (\.objectId, value.stringValue)
            case "installationId": (member, wanted) = (\.installationId, value.stringValue)
            case "user":
                (member, wanted) = (\.userId, value.pointerValue.flatMap { $0.className == SystemClass.user.name ? $0.objectId : nil })
            default: throw ParseError.invalidQuery("_Session is queried by objectId, installationId and user only")
            }
            guard let wanted else { throw ParseError.invalidQuery("\(key) on _Session is tested for equality only") }
            if let current = filter[keyPath: member], current != wanted { return nil }
            filter[keyPath: member] = wanted
        }
        return filter
    }

    /// The session `id` if `caller` may reach it; 101 otherwise.
    private func record(_ id: String, caller: Caller) async throws -> SessionRecord {
        var filter = try reach(caller)
        filter.objectId = id
        guard let record = try await app.stores.accounts.sessions(matching: filter, skip: 0, limit: 1).first else {
            throw ParseError(code: 101, message: "Object not found.")
        }
        return record
    }

    /// Makes and stores a session for `userId`, answering it with its new token.
    private func start(
        _ userId: String, origin: SessionRecord.Origin, installationId: String?, fields: [String: ParseValue]
    ) async throws -> ParseObject {
        let token = SessionToken.generate()
        var record = UserAccounts(app).newSession(token, userId, installationId: installationId, origin: origin)
        record.fields = fields
        try await UserAccounts(app).insertSession(record)
        return object(record, presentedToken: token)
    }

    /// `fields` with `body`'s changes applied, checked: no built-in field (105), valid names, plain
    /// values or `Delete`, at most ``maximumFieldBytes`` in all.
    static func applying(_ body: [String: ParseValue], to fields: [String: ParseValue]) throws -> [String: ParseValue] {
        var fields = fields
        for (key, value) in body {
            guard !builtInFields.contains(key) else { throw ParseError(code: 105, message: "Cannot set \(key) on a Session.") }
            try ParseNames.validateFieldName(key)
            if let operation = value.objectValue?["__op"] {
                guard operation == "Delete" else { throw ParseError(code: 111, message: "a session's fields take plain values or Delete") }
                fields[key] = nil
            } else {
                fields[key] = value
            }
        }
        guard JSONWriter.bytes(.object(fields), limit: maximumFieldBytes) != nil else {
            throw ParseError(code: 116, message: "a session's own fields would be larger than \(maximumFieldBytes) bytes")
        }
        return fields
    }

    /// `record` in Parse's shape, with its token when `presentedToken` is the one it was made for.
    func object(_ record: SessionRecord, presentedToken: String?) -> ParseObject {
        var fields = record.fields
        fields["user"] = .pointer(className: "_User", objectId: record.userId)
        var createdWith: [String: ParseValue] = ["action": .string(record.origin.action.rawValue)]
        if let provider = record.origin.authProvider { createdWith["authProvider"] = .string(provider) }
        fields["createdWith"] = .object(createdWith)
        fields["expiresAt"] = .date(record.expiresAt)
        fields["restricted"] = false
        if let installationId = record.installationId { fields["installationId"] = .string(installationId) }
        if let presentedToken, SessionToken.hash(presentedToken) == record.tokenHash { fields["sessionToken"] = .string(presentedToken) }
        return ParseObject(
            className: SystemClass.session.name, objectId: record.objectId, createdAt: record.createdAt, updatedAt: record.updatedAt,
            fields: fields)
    }
}
