import Cloudlet

/// What a `POST /users` with `authData` did.
public enum AuthDataSignIn: Sendable {
    /// No user was linked to the identities: a new one signed up with them (Parse answers 201),
    /// named `username` (the one given, or a random one).
    case signedUp(SaveResult, sessionToken: String?, username: String)
    /// The user linked to them logged in (Parse answers 200).
    case loggedIn(LoggedInUser)
}

extension UserAccounts {
    /// Signs up or logs in with `authData` (Parse's `POST /users` with `authData`): every provider
    /// named is checked (Apple's and Google's identity tokens against their keys, with the app's
    /// audiences); then the user linked to one of the identities logs in — `beforeLogin` may refuse,
    /// `afterLogin` runs once the session is made — and, with no such user, a new one signs up with
    /// them and the rest of `body` (`username` random unless given, `password` optional).
    /// Throws 252 for a provider the app does not accept, 101 for an identity that does not check
    /// out, 208 when the identities belong to two users. A sign-up that loses the race to another
    /// with the same identity logs into the user it made instead.
    public func signIn(authData value: ParseValue, body: [String: ParseValue], caller: Caller) async throws -> AuthDataSignIn {
        let authData = try AuthData(value)
        guard !authData.ids.isEmpty else { throw AuthData.unsupported }
        return try await signIn(authData, body: body, caller: caller, mayRetry: true)
    }

    private func signIn(_ authData: AuthData, body: [String: ParseValue], caller: Caller, mayRetry: Bool) async throws -> AuthDataSignIn {
        let linked = try await app.stores.accounts.userIds(linkedTo: authData.ids)
        try await verify(authData.providers)
        guard linked.count <= 1 else { throw Self.alreadyLinked }
        guard let id = linked.first else {
            do {
                return try await signUp(authData, body: body, caller: caller)
            } catch let error as ParseError where error == Self.alreadyLinked && mayRetry {
                return try await signIn(authData, body: body, caller: caller, mayRetry: false)
            }
        }
        guard var user = try await app.stores.objects.fetch(SystemClass.user.name, id: id) else { throw ParseError.objectNotFound() }
        let triggers = LoginTriggers(app)
        try await triggers.beforeLogin(user, caller: caller)
        let changed = authData.changed(from: user[AuthData.field])
        if !changed.isEmpty {
            // The newest token of each provider replaces the stored one, as Parse keeps it; no save hooks run.
            var changes = ObjectChanges(fields: [:])
            changes.authData = Dictionary(uniqueKeysWithValues: changed.map { ($0.key.rawValue, $0.value) })
            user = try await app.stores.objects.update(
                SystemClass.user.name, id: id, changes: changes, updatedAt: app.clock.now, check: { _ in }, outbox: nil)
        }
        let token = SessionToken.generate()
        let session = newSession(token, id, installationId: caller.installationId, origin: .authData(authData.loginProvider))
        try await insertSession(session)
        await triggers.afterLogin(user, session: session, caller: caller)
        return .loggedIn(LoggedInUser(user: user, sessionToken: token))
    }

    /// The `authData` changes (``ObjectChanges/authData``) of an update of the user `id`: throws 208
    /// when an identity is another user's (once it has checked out, so that the answer tells
    /// nothing to whoever cannot prove it), and checks each provider whose data changes.
    func linking(_ value: ParseValue, toUser id: String) async throws -> [String: ParseValue] {
        let authData = try AuthData(value)
        if try await app.stores.accounts.userIds(linkedTo: authData.ids).contains(where: { $0 != id }) {
            try await verify(authData.providers)
            throw Self.alreadyLinked
        }
        guard let user = try await app.stores.objects.fetch(SystemClass.user.name, id: id) else { throw ParseError.objectNotFound() }
        try await verify(authData.changed(from: user[AuthData.field]))
        return authData.changes
    }

    private func signUp(_ authData: AuthData, body: [String: ParseValue], caller: Caller) async throws -> AuthDataSignIn {
        var body = body
        let password = body.removeValue(forKey: "password")
        if let password, password.stringValue?.isEmpty ?? true { throw ParseError(code: 201, message: "password is required.") }
        let username = body["username"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? Self.randomUsername()
        body["username"] = .string(username)
        let (saved, token) = try await createUser(
            body, password: password?.stringValue, authData: authData.changes, origin: .authData(authData.loginProvider), caller: caller)
        return .signedUp(saved, sessionToken: token, username: username)
    }

    /// Checks the data of each provider (in name order, as Parse does), nulls aside: 252 for a
    /// provider the app does not accept; Apple's and Google's identity tokens by the host's verifier.
    private func verify(_ providers: [AuthProvider: ParseValue]) async throws {
        let settings = app.authProviders
        for (provider, data) in providers.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let data = data.objectValue, let id = data["id"]?.stringValue else { continue }
            guard let tokenMember = provider.tokenMember else {
                guard settings.anonymousUsers else { throw AuthData.unsupported }
                continue
            }
            let audiences = settings.audiences(of: provider)
            guard !audiences.isEmpty, let verifier = app.identityTokens else { throw AuthData.unsupported }
            guard let token = data[tokenMember]?.stringValue, !token.isEmpty else {
                throw ParseError(code: 101, message: "id token is invalid for this user.")
            }
            try await verifier.verify(token, from: provider, subject: id, audiences: audiences)
        }
    }

    /// A username for a user who gave none: 25 random letters and digits, as Parse makes it.
    private static func randomUsername() -> String {
        String((0..<3).map { _ in ObjectId.new() }.joined().prefix(25))
    }

    /// Parse's answer when an identity is linked to another user.
    package static let alreadyLinked = ParseError(code: 208, message: "this auth is already used")
}
