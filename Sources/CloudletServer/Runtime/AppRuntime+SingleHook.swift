import Cloudlet

extension AppRuntime {
    /// Runs one hook by itself, JSON in and JSON out, as `cloudlet invoke` does: `input` is what the
    /// kind receives (an object for a trigger, parameters for a function); the answer is what it
    /// returns (a before hook's object, a function's result), `{}` for a kind that returns nothing.
    /// A job runs to its end and answers its `_JobStatus`. Nothing else is written unless the hook
    /// writes through its store.
    public func invokeHook(_ kind: HookKind, _ name: String, input: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        guard let hook = hook(kind, name) else { throw ParseError.failed("no \(kind.rawValue) hook for \(name)") }
        switch kind {
        case .beforeSave:
            try ParseNames.validateClassName(name)
            let object = try WriteBody.validated(ParseObject(className: name, json: input))
            return .object(try await runBeforeSave(hook, object, original: nil, caller: caller, holding: nil).json)
        case .job:
            return .object(try await runJobToEnd(name, params: input, caller: caller).json)
        default:
            let answer = try await runHook(hook, input: HookPayload(.object(input)), caller: caller)
            return kind.definition.returns == .nothing ? [:] : answer
        }
    }
}
