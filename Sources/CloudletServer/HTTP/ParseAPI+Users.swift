import Cloudlet
import HTTPTypes

extension ParseAPI {
    /// Signup, login, logout, the current user, and users as the `_User` class.
    func performUsers(_ endpoint: ParseEndpoint, _ call: ParseCall) async throws -> Reply {
        let runtime = call.app.runtime
        switch (endpoint, call.method) {
        case (.users, .post):
            let (saved, token) = try await runtime.signUp(body: call.body, caller: call.caller)
            var body = saved.changedFields
            body["objectId"] = .string(saved.object.objectId!)
            body["createdAt"] = saved.object.json["createdAt"]
            body["sessionToken"] = .string(token)
            return Reply(status: .created, body: .object(body), location: "\(mountPath)/users/\(saved.object.objectId!)")
        case (.users, .get):
            return try await perform(.classes("_User"), call)
        case (.login, .get), (.login, .post):
            let credentials = call.query.merging(call.body) { _, body in body }
            guard let username = credentials["username"]?.stringValue, !username.isEmpty else {
                throw ParseError(code: 200, message: "username is required.")
            }
            guard let password = credentials["password"]?.stringValue, !password.isEmpty else {
                throw ParseError(code: 201, message: "password is required.")
            }
            let loggedIn = try await runtime.logIn(username: username, password: password, address: call.address, caller: call.caller)
            var body = loggedIn.user.json
            body["sessionToken"] = .string(loggedIn.sessionToken)
            return Reply(body: .object(body))
        case (.logout, .post):
            guard let token = call.sessionToken else { throw ParseError(code: 209, message: "Invalid session token") }
            try await runtime.logOut(tokenHash: SessionToken.hash(token), caller: call.caller)
            return Reply(body: [:])
        case (.currentUser, .get):
            guard let token = call.sessionToken, let userId = call.caller.userId else {
                throw ParseError(code: 209, message: "Invalid session token")
            }
            var body = try await runtime.get("_User", id: userId, caller: call.caller.asMaster).json
            body["sessionToken"] = .string(token)
            return Reply(body: .object(body))
        case (.user(let id), .get), (.user(let id), .delete):
            return try await perform(.object("_User", id), call)
        case (.user(let id), .put):
            let saved = try await runtime.updateUser(id: id, body: call.body, caller: call.caller)
            var body = saved.changedFields
            body["updatedAt"] = saved.object.json["updatedAt"]
            return Reply(body: .object(body))
        default:
            throw ParseError(code: 119, message: "\(call.method.rawValue) is not allowed here", httpStatus: 405)
        }
    }
}
