import Cloudlet

extension AppRuntime {
    /// Runs one hook by itself, JSON in and JSON out, as `cloudlet invoke` does: `input` is the
    /// object for a trigger (a before hook answers the object as it left it) or the parameters of a
    /// function, or the parameters of a job (which runs to its end here; the answer is its
    /// `_JobStatus`). Nothing else is written unless the hook writes through its store.
    public func invokeHook(_ kind: HookKind, _ name: String, input: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        guard hasHook(kind, name) else { throw ParseError.failed("no \(kind.rawValue) hook for \(name)") }
        switch kind {
        case .function:
            return try await callFunction(name, params: input, caller: caller)
        case .beforeSave:
            try ParseNames.validateClassName(name)
            let object = try WriteBody.validated(ParseObject(className: name, json: input))
            return .object(try await runBeforeSave(object, original: nil, caller: caller, holding: nil).json)
        case .afterSave:
            let object = ParseObject(className: name, json: input)
            try await invoke(kind, name, caller: caller) { [executor] context in
                try await executor.afterSave(AfterSaveRequest(object: object, original: nil, context: context))
            }
            return [:]
        case .beforeDelete, .afterDelete:
            let object = ParseObject(className: name, json: input)
            try await invoke(kind, name, caller: caller) { [executor] context in
                try await executor.delete(kind, DeleteRequest(object: object, context: context))
            }
            return [:]
        case .job:
            return .object(try await runJobToEnd(name, params: input, caller: caller).json)
        }
    }
}
