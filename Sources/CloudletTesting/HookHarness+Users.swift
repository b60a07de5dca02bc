import Cloudlet
import CloudletRuntime

extension HookHarness {
    /// Signs up a user with `username`, `password` and `fields`, as `POST /users` does, and returns it.
    @discardableResult
    public func signUp(username: String, password: String, _ fields: [String: ParseValue] = [:]) async throws -> ParseObject {
        var body = fields
        body["username"] = .string(username)
        body["password"] = .string(password)
        return try await runtime.accounts.signUp(body: body, caller: caller(.anonymous)).0.object
    }

    /// Logs in as `POST /login` does, from the device `installationId` if given: the `beforeLogin`
    /// hook may refuse it, and the `afterLogin` hook runs once the session is made.
    public func logIn(username: String, password: String, installationId: String? = nil) async throws -> LoggedInUser {
        var device = try await caller(.anonymous)
        device.installationId = installationId
        return try await runtime.accounts.logIn(username: username, password: password, address: nil, caller: device)
    }

    /// Signs up or logs in with `authData` as `POST /users` with it does: the user linked to one of
    /// its identities logs in (`beforeLogin` may refuse, `afterLogin` runs), or a new user signs up
    /// with them and `fields`. Only `anonymous` identities check out in the harness (it has no
    /// identity provider): `harness.signIn(authData: ["anonymous": ["id": "device-1"]])`.
    public func signIn(authData: ParseValue, _ fields: [String: ParseValue] = [:]) async throws -> AuthDataSignIn {
        try await runtime.accounts.signIn(authData: authData, body: fields, caller: caller(.anonymous))
    }

    /// Logs the session `sessionToken` out as `POST /logout` does; the `afterLogout` hook runs once
    /// it is deleted. Throws 209 for a token that is not a session.
    public func logOut(sessionToken: String) async throws {
        let caller = try await runtime.accounts.caller(sessionToken: sessionToken, installationId: nil, requestId: "harness")
        guard let tokenHash = caller.sessionTokenHash else { throw ParseError(code: 209, message: "Invalid session token") }
        try await runtime.accounts.logOut(tokenHash: tokenHash, caller: caller)
    }

    /// The user `sessionToken` stands for, or nil if it is not a live session.
    public func user(sessionToken: String) async throws -> String? {
        do {
            return try await runtime.accounts.caller(sessionToken: sessionToken, installationId: nil, requestId: "harness").userId
        } catch let error as ParseError where error.code == 209 {
            return nil
        }
    }
}
