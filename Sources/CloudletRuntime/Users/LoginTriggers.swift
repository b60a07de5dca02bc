import Cloudlet

/// The login kinds' call sites. `beforeLogin` may refuse a login; `afterLogin` and `afterLogout`
/// run once their session is made or deleted, and their errors and timeouts are logged and counted
/// in the hook's statistics, never answered to the client.
struct LoginTriggers {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Runs the app's `beforeLogin` hook, if it has one, on `user`, whose password matched (or
    /// whose `authData` identity checked out); its error refuses the login.
    func beforeLogin(_ user: ParseObject, caller: Caller) async throws {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.beforeLogin, "") else { return }
        _ = try await hooks.run(hook, input: HookPayload(user), caller: caller)
    }

    /// Runs the app's `afterLogin` hook, if it has one, on `user`, acting as the user with the
    /// session `session`.
    func afterLogin(_ user: ParseObject, session: SessionRecord, caller: Caller) async {
        guard let hook = HookRunner(app).hook(.afterLogin, ""), let id = user.objectId else { return }
        var caller = caller
        caller.userId = id
        caller.roles = (try? await UserRoles(app).names(ofUser: id)) ?? []
        caller.sessionTokenHash = session.tokenHash
        await runAfterward(hook, input: user, caller: caller)
    }

    /// Runs the app's `afterLogout` hook, if it has one, on the deleted `session`, as its user.
    func afterLogout(_ session: SessionRecord, caller: Caller) async {
        guard let hook = HookRunner(app).hook(.afterLogout, "") else { return }
        let object = UserSessions(app).object(session, presentedToken: nil)
        var caller = caller
        caller.userId = session.userId
        caller.installationId = caller.installationId ?? session.installationId
        await runAfterward(hook, input: object, caller: caller)
    }

    /// Runs an after hook whose failure must not fail its request: ``HookRunner/run(_:input:original:caller:eventId:)``
    /// has logged and counted it.
    private func runAfterward(_ hook: HookRegistry.Summary, input: ParseObject, caller: Caller) async {
        _ = try? await HookRunner(app).run(hook, input: HookPayload(input), caller: caller)
    }
}
