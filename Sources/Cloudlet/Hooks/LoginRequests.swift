/// What a `beforeLogin` or `afterLogin` hook receives: the `_User` logging in (never its password).
///
/// `beforeLogin` runs once the password matched and before the session is made; throwing refuses
/// the login. `afterLogin` runs once the session is made, with the user as the context's `user`
/// (`request.context.user`; in `beforeLogin` the call acts for no user yet, as in Parse).
public struct LoginRequest: HookRequest {
    /// The user object, with its own fields (`username`, `email`, …).
    public let user: ParseObject
    /// The call's context.
    public let context: HookContext

    package init(user: ParseObject, context: HookContext) {
        self.user = user
        self.context = context
    }
}

/// What an `afterLogout` hook receives: the session just ended, as a `_Session` object in Parse's
/// shape (`objectId`, `user` as a pointer, `createdWith`, `installationId`, `expiresAt`, `restricted`,
/// its own fields; never its token). The context's `user` is the session's user.
public struct LogoutRequest: HookRequest {
    /// The session that was deleted.
    public let session: ParseObject
    /// The call's context.
    public let context: HookContext

    package init(session: ParseObject, context: HookContext) {
        self.session = session
        self.context = context
    }
}
