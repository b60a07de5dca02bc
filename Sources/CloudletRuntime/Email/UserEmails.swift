import Cloudlet
import Foundation

/// An app's email links, as Parse Server sends them: password resets and email verifications.
/// Asking for a link answers the same whether or not the email belongs to a user (Parse Server's
/// `emailVerifySuccessOnInvalidEmail`), bounded by ``EmailRequestThrottle``. Each link carries a
/// random token stored only as its hash, good once, until it expires or the user's email changes.
/// The requests and the messages go through the app's work queue (kind ``WorkKind/email``), off
/// the request path and retried (see ``EmailDelivery``).
public struct UserEmails: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The app's name as its messages and pages show it: the `appName` of its email policy, else its id.
    public var appName: String { app.emailPolicy.appName ?? app.id }

    /// `POST /requestPasswordReset`: queues the request, which sends a reset link if `email` is a
    /// user's. Throws 204 without an email, 125 for one that is not an address, 155 past the throttle.
    public func requestPasswordReset(email: ParseValue?, address: String?) async throws {
        try await queueRequest(.resetPassword, email: email, address: address)
    }

    /// `POST /verificationEmailRequest`: queues the request, which sends a verification link if
    /// `email` is a user's whose email is not verified yet. Throws as
    /// ``requestPasswordReset(email:address:)`` does.
    public func requestVerification(email: ParseValue?, address: String?) async throws {
        try await queueRequest(.verifyEmail, email: email, address: address)
    }

    /// Queues a request for a link of `purpose` to `email`, once checked and counted: the request
    /// does the same work (one queued row) whether or not the email is a user's, so neither its
    /// answer nor its time tells; the work queue looks the user up (``answerRequest(_:)``).
    private func queueRequest(_ purpose: EmailTokenPurpose, email: ParseValue?, address: String?) async throws {
        guard let email, !email.isNull, email.stringValue?.isEmpty != true else {
            throw ParseError(code: 204, message: "you must provide an email")
        }
        let checked = try EmailAddress.checked(email)
        try app.emailThrottle.admit(email: checked, address: address)
        let request: ParseValue = ["request": .string(purpose.rawValue), "email": .string(checked)]
        try await app.stores.work.enqueue([NewWork(id: "email-" + ObjectId.new(), kind: .email, payload: request, due: app.clock.now)])
    }

    /// Answers a queued request for a link (`{"request": <purpose>, "email"}`): stores a token and
    /// queues the message when the email is a user's (for a verification, one not verified yet).
    func answerRequest(_ request: ParseValue) async throws {
        guard let purpose = request["request"]?.stringValue.flatMap(EmailTokenPurpose.init(rawValue:)),
            let email = request["email"]?.stringValue,
            let user = try await user(withEmail: email)
        else { return }
        if purpose == .verifyEmail, user["emailVerified"]?.boolValue == true { return }
        try await send(purpose, to: user, email: email)
    }

    /// Sends `user`, as a sign-up or an email change just saved it, a link to verify its email, when
    /// the app verifies emails (unless the master key said it is verified). A failure to queue it
    /// is logged: the sign-up or change it follows stands.
    func sendVerification(to user: ParseObject) async {
        guard app.emailPolicy.verifyUserEmails, let address = user["email"]?.stringValue, EmailAddress.isValid(address),
            user["emailVerified"]?.boolValue != true
        else { return }
        do {
            try await send(.verifyEmail, to: user, email: address)
        } catch {
            app.logger.error("could not queue a verification email", metadata: ["user_id": "\(user.objectId ?? "")", "error": "\(error)"])
        }
    }

    /// Follows a verification link: marks its user's email verified and uses up the token. False
    /// for a token unknown, used, expired or sent to an email the user no longer has.
    public func verifyEmail(token: String, requestId: String) async throws -> Bool {
        guard let record = try await take(token, .verifyEmail) else { return false }
        let changes = ObjectChanges(fields: ["emailVerified": .set(.bool(true))])
        _ = try await ObjectWrites(app).update(SystemClass.user.name, id: record.userId, changes: changes, caller: master(requestId))
        return true
    }

    /// Whether `token` is a password-reset link that still works (the choose-password page shows
    /// its form only then).
    public func isValidResetLink(_ token: String) async throws -> Bool {
        guard EmailToken.isWellFormed(token),
            let record = try await app.stores.accounts.emailToken(hash: SessionToken.hash(token), purpose: .resetPassword)
        else { return false }
        return try await stillValid(record)
    }

    /// Sets a new password through a reset link: the token is used up, and every session of the
    /// user ends. Throws 201 for an empty password, 206 for a link that does not work.
    public func resetPassword(token: String, newPassword: String, requestId: String) async throws {
        guard !newPassword.isEmpty else { throw ParseError(code: 201, message: "password is required.") }
        guard let record = try await take(token, .resetPassword) else {
            throw ParseError(code: 206, message: "The password reset link is invalid or has expired.")
        }
        _ = try await UserAccounts(app).updateUser(id: record.userId, body: ["password": .string(newPassword)], caller: master(requestId))
        app.logger.info("password reset through an email link", metadata: ["user_id": "\(record.userId)", "request_id": "\(requestId)"])
    }

    private func user(withEmail email: String) async throws -> ParseObject? {
        let query = ParseQuery(SystemClass.user.name, constraints: ["email": .string(email)], limit: 1)
        return try await app.stores.objects.find(StorageQuery(query: query, readerIdentities: nil)).first
    }

    /// Stores a new token of `purpose` for `user` and queues the message with its link.
    private func send(_ purpose: EmailTokenPurpose, to user: ParseObject, email: String) async throws {
        guard let userId = user.objectId else { return }
        let policy = app.emailPolicy
        let token = EmailToken.generate()
        let lifetime = purpose == .verifyEmail ? policy.verificationLinkLifetime : policy.resetLinkLifetime
        let now = app.clock.now
        try await app.stores.accounts.replaceEmailToken(
            EmailTokenRecord(
                tokenHash: SessionToken.hash(token), purpose: purpose, userId: userId, email: email,
                expiresAt: now.addingTimeInterval(lifetime.seconds)))
        let message = EmailTemplates(appName: appName, links: policy.links, appId: app.id)
            .message(purpose, token: token, to: email, username: user["username"]?.stringValue)
        try await app.stores.work.enqueue([NewWork(id: "email-" + ObjectId.new(), kind: .email, payload: message.json, due: now)])
    }

    /// Removes the token and answers it, if it still works.
    private func take(_ token: String, _ purpose: EmailTokenPurpose) async throws -> EmailTokenRecord? {
        guard EmailToken.isWellFormed(token),
            let record = try await app.stores.accounts.takeEmailToken(hash: SessionToken.hash(token), purpose: purpose),
            try await stillValid(record)
        else { return nil }
        return record
    }

    /// Whether the token has not expired and its user still has the email it was sent to.
    private func stillValid(_ record: EmailTokenRecord) async throws -> Bool {
        guard record.expiresAt > app.clock.now, let user = try await app.stores.objects.fetch(SystemClass.user.name, id: record.userId)
        else { return false }
        return user["email"]?.stringValue?.lowercased() == record.email.lowercased()
    }

    private func master(_ requestId: String) -> Caller {
        Caller(isMaster: true, requestId: requestId)
    }
}

extension AppContext {
    /// How the app handles its users' emails; setting it (as the app's settings change) applies to
    /// the links and messages made from then on.
    package var emailPolicy: EmailPolicy {
        get { email.policy }
        set { email.policy = newValue }
    }

    /// The bound on requests for email links.
    var emailThrottle: EmailRequestThrottle { email.throttle }
}
