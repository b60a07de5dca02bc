/// Runs a hook by kind and name on JSON input, as a worker receives it.
extension HookRegistry {
    /// Runs the hook of `kind` for `name` with `input` (the object, or a function's parameters) and
    /// `original` (the stored object, for an update), and returns its answer as JSON: the object as the
    /// hook left it for `beforeSave`, the result for a function, `null` otherwise. A job's input is its
    /// parameters.
    package func run(
        _ kind: HookKind, _ name: String, input: ParseValue, original: ParseValue?, context: HookContext
    ) async throws -> ParseValue {
        let object = ParseObject(className: name, json: input.objectValue ?? [:])
        let originalObject = original?.objectValue.map { ParseObject(className: name, json: $0) }
        switch kind {
        case .beforeSave:
            guard let hook = beforeSaves[name] else { return input }
            var request = BeforeSaveRequest(object: object, original: originalObject, context: context)
            try await hook.handler(&request)
            return .object(request.object.json)
        case .afterSave:
            try await afterSaves[name]?.handler(AfterSaveRequest(object: object, original: originalObject, context: context))
        case .beforeDelete:
            try await beforeDeletes[name]?.handler(DeleteRequest(object: object, context: context))
        case .afterDelete:
            try await afterDeletes[name]?.handler(DeleteRequest(object: object, context: context))
        case .function:
            guard let hook = functions[name] else { throw ParseError.failed("Invalid function: \"\(name)\"") }
            return try await hook.handler(FunctionRequest(params: input.objectValue ?? [:], context: context))
        case .job:
            guard let hook = jobs[name] else { throw ParseError.failed("Invalid job.") }
            try await hook.handler(JobRequest(params: input.objectValue ?? [:], context: context))
        }
        return .null
    }
}
