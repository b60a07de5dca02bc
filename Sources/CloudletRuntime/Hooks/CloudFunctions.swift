import Cloudlet

/// An app's cloud functions: each is its `function` hook.
public struct CloudFunctions: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Runs the function hook `name` with `params` and returns its result; 141 for a function the
    /// app does not have.
    public func call(_ name: String, params: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.function, name) else { throw ParseError.failed("Invalid function: \"\(name)\"") }
        return try await hooks.run(hook, input: HookPayload(.object(params)), caller: caller)
    }
}
