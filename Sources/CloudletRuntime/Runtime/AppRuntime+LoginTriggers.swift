import Cloudlet

/// The login kinds' call sites. `beforeLogin` may refuse a login; `afterLogin` and `afterLogout`
/// run once their session is made or deleted, and their errors and timeouts are logged and counted
/// in the hook's statistics, never answered to the client.
extension AppRuntime {
    /// Runs the app's `beforeLogin` hook, if it has one, on `user`, whose password matched; its
    /// error refuses the login.
    package func beforeLogin(_ user: ParseObject, caller: Caller) async throws {
        guard let hook = hook(.beforeLogin, "") else { return }
        _ = try await runHook(hook, input: HookPayload(user), caller: caller)
    }

    /// Runs the app's `afterLogin` hook, if it has one, on `user`, acting as the user with the
    /// session `session`.
    package func afterLogin(_ user: ParseObject, session: SessionRecord, caller: Caller) async {
        guard let hook = hook(.afterLogin, ""), let id = user.objectId else { return }
        var caller = caller
        caller.userId = id
        caller.roles = (try? await roles(ofUser: id)) ?? []
        caller.sessionTokenHash = session.tokenHash
        await runAfterward(hook, input: user, caller: caller)
    }

    /// Runs the app's `afterLogout` hook, if it has one, on the deleted `session`, as its user.
    package func afterLogout(_ session: SessionRecord, caller: Caller) async {
        guard let hook = hook(.afterLogout, "") else { return }
        var fields: [String: ParseValue] = [
            "user": .pointer(className: "_User", objectId: session.userId), "expiresAt": .date(session.expiresAt),
        ]
        if let installationId = session.installationId { fields["installationId"] = .string(installationId) }
        let object = ParseObject(className: "_Session", createdAt: session.createdAt, fields: fields)
        var caller = caller
        caller.userId = session.userId
        caller.installationId = caller.installationId ?? session.installationId
        await runAfterward(hook, input: object, caller: caller)
    }

    /// Runs an after hook whose failure must not fail its request: ``runHook(_:input:original:caller:eventId:)``
    /// has logged and counted it.
    private func runAfterward(_ hook: HookRegistry.Summary, input: ParseObject, caller: Caller) async {
        _ = try? await runHook(hook, input: HookPayload(input), caller: caller)
    }
}
