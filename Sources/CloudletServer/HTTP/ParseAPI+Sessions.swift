import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// `GET /sessions` (or `/classes/_Session`): the caller's own sessions (the master key: all),
    /// and their count when asked.
    func findSessions(_ call: ParseCall) async throws -> Reply {
        let parameters = try QueryParameters(className: SystemClass.session.name, call.query.merging(call.body) { _, body in body })
        let (found, count) = try await call.app.runtime.sessions.find(
            parameters.query, counting: parameters.count, caller: call.caller, presentedToken: call.sessionToken, budget: call.budget)
        var body: [String: ParseValue] = ["results": .array(found.map { .object($0.json) })]
        if let count { body["count"] = .number(Double(count)) }
        return Reply(body: .object(body))
    }

    /// `GET /sessions/:objectId`: one of the caller's sessions; 101 for another user's.
    func getSession(_ call: ParseCall) async throws -> Reply {
        let session = try await call.app.runtime.sessions.get(
            try call.parameter("objectId"), caller: call.caller, presentedToken: call.sessionToken)
        return Reply(body: .object(session.json))
    }

    /// `GET /sessions/me`: the session whose token the request presents.
    func currentSession(_ call: ParseCall) async throws -> Reply {
        Reply(body: .object(try await call.app.runtime.sessions.current(presentedToken: call.sessionToken).json))
    }

    /// `POST /sessions`: a new session for the caller's user, answered 201 with its token.
    func createSession(_ call: ParseCall) async throws -> Reply {
        let session = try await call.app.runtime.sessions.create(body: call.body, caller: call.caller)
        return Reply(status: .created, body: .object(session.json), location: "\(mountPath)/sessions/\(session.objectId!)")
    }

    /// `PUT /sessions/:objectId`: sets the caller's own fields on one of its sessions.
    func updateSession(_ call: ParseCall) async throws -> Reply {
        let session = try await call.app.runtime.sessions.update(try call.parameter("objectId"), body: call.body, caller: call.caller)
        return Reply(body: ["updatedAt": session.json["updatedAt"] ?? .null])
    }

    /// `DELETE /sessions/:objectId`: ends one of the caller's sessions; its token stops working at once.
    func deleteSession(_ call: ParseCall) async throws -> Reply {
        try await call.app.runtime.sessions.delete(try call.parameter("objectId"), caller: call.caller)
        return Reply(body: [:])
    }

    /// `POST /upgradeToRevocableSession`: a new session for the caller's user, with its token.
    func upgradeSession(_ call: ParseCall) async throws -> Reply {
        Reply(body: .object(try await call.app.runtime.sessions.upgrade(caller: call.caller).json))
    }
}
