import Cloudlet
import Foundation

/// A user as login and signup answer it: the `_User` object and its new session token.
public struct LoggedInUser: Sendable {
    /// The user object (never with a password).
    public let user: ParseObject
    /// The new session's token, for `X-Parse-Session-Token`.
    public let sessionToken: String
}

/// An app's accounts: sign-ups, logins and logouts, the sessions they make, and the caller a
/// session token stands for. Users are `_User` objects, written through ``ObjectWrites`` with their hooks.
public struct UserAccounts: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Signs a user up: `username` and `password` are required, `email` must look like one, and the
    /// rest of `body` are the user's own fields. The user, its credentials and its first session are
    /// written in one transaction; `beforeSave`/`afterSave` hooks on `_User` run as for any class.
    /// A user with an email starts with `emailVerified` false, and is sent a verification link
    /// when the app verifies emails; where the app refuses logins of unverified emails, such a
    /// user gets no session (the token answered is nil), as in Parse Server.
    /// (A body with `authData` goes to ``signIn(authData:body:caller:)`` instead.)
    public func signUp(body: [String: ParseValue], caller: Caller) async throws -> (SaveResult, String?) {
        var body = body
        guard let password = body.removeValue(forKey: "password")?.stringValue, !password.isEmpty else {
            throw ParseError(code: 201, message: "password is required.")
        }
        guard let username = body["username"]?.stringValue, !username.isEmpty else {
            throw ParseError(code: 200, message: "bad or missing username")
        }
        return try await createUser(body, password: password, authData: [:], origin: .signup, caller: caller)
    }

    /// Creates the user of `body`'s fields, with `password` hashed (if any) and linked to the
    /// providers of `authData` (already checked), and its first session, made by `origin` (none for an email the app
    /// requires verified before a login); answers the save and the session's token.
    func createUser(
        _ body: [String: ParseValue], password: String?, authData: [String: ParseValue], origin: SessionRecord.Origin, caller: Caller
    ) async throws -> (SaveResult, String?) {
        try SystemClass.check(.create, SystemClass.user.name, by: caller)
        if let email = body["email"] { _ = try EmailAddress.checked(email) }
        var changes = try WriteBody(body, isCreate: true).changes
        changes.authData = authData
        let token = SessionToken.generate()
        let waitsForVerification = app.emailPolicy.preventLoginWithUnverifiedEmail
        var hash: String?
        if let password { hash = try await app.limits.passwordHasher.hash(password) }
        // The master key may say itself whether the email is verified.
        let unverified: [String: ParseValue] = body["email"] == nil || body["emailVerified"] != nil ? [:] : ["emailVerified": .bool(false)]
        let saved = try await ObjectWrites(app).create("_User", changes: changes, serverSet: unverified, caller: caller) {
            user, relations, event, heldJobs in
            guard relations.isEmpty else { throw ParseError.incorrectType("a user's relations are added once it has signed up") }
            var user = user
            if user.acl == nil, let id = user.objectId {
                user.acl = ParseACL([ParseACL.publicEntry: .init(read: true), id: .init(read: true, write: true)])
            }
            let session =
                waitsForVerification && user["email"] != nil
                ? nil : newSession(token, user.objectId!, installationId: caller.installationId, origin: origin)
            try await app.stores.accounts.insertUser(user, passwordHash: hash, session: session, outbox: event,
                alongside: heldJobs)
        }
        app.logger.info("user signed up", metadata: ["user_id": "\(saved.object.objectId!)", "request_id": "\(caller.requestId)"])
        await UserEmails(app).sendVerification(to: saved.object)
        return (saved, waitsForVerification && saved.object["email"] != nil ? nil : token)
    }

    /// Logs a user in. A wrong username and a wrong password give the same error (101) after the
    /// same bcrypt work (an unknown username is checked against a stand-in hash), and every
    /// attempt counts against the username and the client's address until its password matched.
    /// An app that requires verified emails then refuses (205) a user whose email is not verified.
    /// Then the `beforeLogin` hook may refuse it (no session is made), and the `afterLogin` hook
    /// runs once the session is made.
    public func logIn(username: String, password: String, address: String?, caller: Caller) async throws -> LoggedInUser {
        let attempt = try app.loginThrottle.begin(username: username, address: address)
        let matches = try await app.stores.objects.find(
            StorageQuery(query: ParseQuery("_User", constraints: ["username": .string(username)], limit: 1), readerIdentities: nil))
        var hash: String?
        if let id = matches.first?.objectId { hash = try await app.stores.accounts.passwordHash(ofUser: id) }
        guard try await app.limits.passwordHasher.verify(password, hash: hash), let user = matches.first, let id = user.objectId else {
            throw ParseError(code: 101, message: "Invalid username/password.")
        }
        app.loginThrottle.succeeded(attempt)
        if app.emailPolicy.preventLoginWithUnverifiedEmail, user["email"] != nil, user["emailVerified"]?.boolValue != true {
            throw ParseError(code: 205, message: "User email is not verified.")
        }
        let triggers = LoginTriggers(app)
        try await triggers.beforeLogin(user, caller: caller)
        let token = SessionToken.generate()
        let session = newSession(token, id, installationId: caller.installationId, origin: .login)
        try await insertSession(session)
        await triggers.afterLogin(user, session: session, caller: caller)
        return LoggedInUser(user: user, sessionToken: token)
    }

    /// Ends the session whose token hashes to `tokenHash`, then runs the `afterLogout` hook (as
    /// `caller`, the session's user). Throws 209 if there is no such session.
    public func logOut(tokenHash: String, caller: Caller) async throws {
        let session = HookRunner(app).hook(.afterLogout, "") != nil ? try await app.stores.accounts.session(tokenHash: tokenHash) : nil
        guard try await deleteSession(tokenHash: tokenHash) else {
            throw ParseError(code: 209, message: "Invalid session token")
        }
        if let session { await LoginTriggers(app).afterLogout(session, caller: caller) }
    }

    /// Updates a user as ``ObjectWrites/update(_:id:body:caller:)`` does; a new `password` is hashed, and the
    /// user, the new hash and the end of the user's other sessions commit in one transaction.
    /// A new email makes `emailVerified` false (and is sent a verification link when the app
    /// verifies emails). `authData` links (an object) and unlinks (null) providers, as
    /// ``linking(_:toUser:)`` checks them. Only the user (or the master key) may change a user.
    public func updateUser(id: String, body: [String: ParseValue], caller: Caller) async throws -> SaveResult {
        guard caller.isMaster || caller.userId == id else {
            throw ParseError(code: 206, message: "Cannot modify user \(id).")
        }
        var body = body
        let password = body.removeValue(forKey: "password")
        let authData = body.removeValue(forKey: AuthData.field)
        if let password, password.stringValue?.isEmpty ?? true { throw ParseError(code: 201, message: "password is required.") }
        if let email = body["email"] { _ = try EmailAddress.checked(email) }
        var changes = try WriteBody(body, isCreate: false).changes
        if let authData { changes.authData = try await linking(authData, toUser: id) }
        if let password = password?.stringValue {
            changes.password = PasswordChange(
                hash: try await app.limits.passwordHasher.hash(password), keptSessionTokenHash: caller.sessionTokenHash)
        }
        let newEmail = try await changedEmail(body["email"], ofUser: id)
        let unverified: [String: FieldChange] = newEmail == nil || body["emailVerified"] != nil ? [:] : ["emailVerified": .set(.bool(false))]
        let saved = try await ObjectWrites(app).update("_User", id: id, changes: changes, serverSet: unverified, caller: caller)
        if newEmail != nil { await UserEmails(app).sendVerification(to: saved.object) }
        return saved
    }

    /// `email` when it sets the user `id` an email other than the one stored (case aside), else nil.
    private func changedEmail(_ email: ParseValue?, ofUser id: String) async throws -> ParseValue? {
        guard let email, let text = email.stringValue else { return nil }
        let stored = try await app.stores.objects.fetch("_User", id: id)?["email"]?.stringValue
        return stored?.lowercased() == text.lowercased() ? nil : email
    }

    /// A new session of `userId` for `token`, lasting the app's session length from now.
    func newSession(_ token: String, _ userId: String, installationId: String?, origin: SessionRecord.Origin) -> SessionRecord {
        let now = app.clock.now
        return SessionRecord(
            tokenHash: SessionToken.hash(token), userId: userId, installationId: installationId, origin: origin, createdAt: now,
            expiresAt: now.addingTimeInterval(app.sessionLifetime.seconds))
    }
}
