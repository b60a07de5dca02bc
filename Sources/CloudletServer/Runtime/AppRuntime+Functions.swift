import Cloudlet

extension AppRuntime {
    /// Runs the function hook `name` with `params` and returns its result.
    public func callFunction(_ name: String, params: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        guard hasHook(.function, name) else { throw ParseError.failed("Invalid function: \"\(name)\"") }
        return try await invoke(.function, name, caller: caller) { [executor] context in
            try await executor.function(name, FunctionRequest(params: params, context: context))
        }
    }
}
