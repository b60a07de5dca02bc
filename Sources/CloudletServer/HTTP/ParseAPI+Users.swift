import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// `POST /users` (or `/classes/_User`): signs up, answering 201 with the user's id, creation
    /// time and a new session token (none for an email the app requires verified before a login).
    func signUp(_ call: ParseCall) async throws -> Reply {
        let (saved, token) = try await call.app.runtime.accounts.signUp(body: call.body, caller: call.caller)
        var body = saved.changedFields
        body["objectId"] = .string(saved.object.objectId!)
        body["createdAt"] = saved.object.json["createdAt"]
        body["sessionToken"] = token.map(ParseValue.string)
        return Reply(status: .created, body: .object(body), location: "\(mountPath)/users/\(saved.object.objectId!)")
    }

    /// `GET|POST /login` with `username` and `password` (in the URL or the body): the user and a
    /// new session token.
    func logIn(_ call: ParseCall) async throws -> Reply {
        let credentials = call.query.merging(call.body) { _, body in body }
        guard let username = credentials["username"]?.stringValue, !username.isEmpty else {
            throw ParseError(code: 200, message: "username is required.")
        }
        guard let password = credentials["password"]?.stringValue, !password.isEmpty else {
            throw ParseError(code: 201, message: "password is required.")
        }
        let loggedIn = try await call.app.runtime.accounts.logIn(
            username: username, password: password, address: call.address, caller: call.caller)
        var body = loggedIn.user.json
        body["sessionToken"] = .string(loggedIn.sessionToken)
        return Reply(body: .object(body))
    }

    /// `POST /logout`: ends the call's session.
    func logOut(_ call: ParseCall) async throws -> Reply {
        guard let token = call.sessionToken else { throw ParseError(code: 209, message: "Invalid session token") }
        try await call.app.runtime.accounts.logOut(tokenHash: SessionToken.hash(token), caller: call.caller)
        return Reply(body: [:])
    }

    /// `GET /users/me`: the session's user, with its session token.
    func currentUser(_ call: ParseCall) async throws -> Reply {
        guard let token = call.sessionToken, let userId = call.caller.userId else {
            throw ParseError(code: 209, message: "Invalid session token")
        }
        var body = try await call.app.runtime.reads.get(SystemClass.user.name, id: userId, caller: call.caller.asMaster).json
        body["sessionToken"] = .string(token)
        return Reply(body: .object(body))
    }
}
