import Cloudlet

extension AppRuntime {
    /// Runs the function hook `name` with `params` and returns its result.
    public func callFunction(_ name: String, params: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        guard let hook = hook(.function, name) else { throw ParseError.failed("Invalid function: \"\(name)\"") }
        return try await runHook(hook, input: HookPayload(.object(params)), caller: caller)
    }
}
