import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// `POST /users` (or `/classes/_User`): signs up, answering 201 with the user's id, creation
    /// time and a new session token (none for an email the app requires verified before a login).
    /// With `authData`, logs the linked user in instead (200, the
    /// user and a new session token) when there is one.
    func signUp(_ call: ParseCall) async throws -> Reply {
        let accounts = call.app.runtime.accounts
        guard let authData = call.body["authData"] else {
            let (saved, token) = try await accounts.signUp(body: call.body, caller: call.caller)
            return signedUp(saved, token: token)
        }
        var rest = call.body
        rest["authData"] = nil
        switch try await accounts.signIn(authData: authData, body: rest, caller: call.caller) {
        case .signedUp(let saved, let token, let username):
            return signedUp(saved, token: token, username: username)
        case .loggedIn(let loggedIn):
            return loggedInReply(loggedIn)
        }
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
        return loggedInReply(loggedIn)
    }

    /// 201 with the new user's id, creation time, the fields the server set (with `username`, when
    /// the server chose it) and its session token.
    private func signedUp(_ saved: SaveResult, token: String?, username: String? = nil) -> Reply {
        var body = saved.changedFields
        if let username { body["username"] = .string(username) }
        body["objectId"] = .string(saved.object.objectId!)
        body["createdAt"] = saved.object.json["createdAt"]
        body["sessionToken"] = token.map(ParseValue.string)
        return Reply(status: .created, body: .object(body), location: "\(mountPath)/users/\(saved.object.objectId!)")
    }

    /// The user who logged in, with their new session token.
    private func loggedInReply(_ loggedIn: LoggedInUser) -> Reply {
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
