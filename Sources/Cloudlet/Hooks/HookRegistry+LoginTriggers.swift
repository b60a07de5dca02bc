/// The registration methods of the login kinds. They bind to nothing: an app has at most one of each.
///
/// ```swift
/// hooks.beforeLogin { request in
///     if request.user["banned"] == true { throw HookError.failed("this account is suspended") }
/// }
/// hooks.afterLogout { request in request.logger.info("logged out") }
/// ```
extension HookRegistry {
    /// A `beforeLogin` or `afterLogin` handler.
    public typealias LoginHandler = @Sendable (LoginRequest) async throws -> Void
    /// An `afterLogout` handler.
    public typealias LogoutHandler = @Sendable (LogoutRequest) async throws -> Void

    /// Runs `handler` on the user of each login whose password matched, before its session is made;
    /// throwing refuses the login with the hook's error (141, or 142 for ``ParseError/validation(_:)``)
    /// and no session is made.
    public mutating func beforeLogin(timeLimit: Duration = HookKind.beforeLogin.defaultTimeLimit, _ handler: @escaping LoginHandler) {
        register(.beforeLogin, "", timeLimit: timeLimit) { call in
            try await handler(LoginRequest(user: call.object(of: "_User"), context: call.context))
            return .null
        }
    }

    /// Runs `handler` on the user of each login once its session is made; its error is logged and
    /// counted, and never fails the login.
    public mutating func afterLogin(timeLimit: Duration = HookKind.afterLogin.defaultTimeLimit, _ handler: @escaping LoginHandler) {
        register(.afterLogin, "", timeLimit: timeLimit) { call in
            try await handler(LoginRequest(user: call.object(of: "_User"), context: call.context))
            return .null
        }
    }

    /// Runs `handler` on the session of each logout once it is deleted; its error is logged and
    /// counted, and never fails the logout.
    public mutating func afterLogout(timeLimit: Duration = HookKind.afterLogout.defaultTimeLimit, _ handler: @escaping LogoutHandler) {
        register(.afterLogout, "", timeLimit: timeLimit) { call in
            try await handler(LogoutRequest(session: call.object(of: "_Session"), context: call.context))
            return .null
        }
    }
}
