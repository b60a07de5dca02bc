import Cloudlet

/// Runs one of an app's hooks by itself, JSON in and JSON out, as `cloudlet invoke` does.
public struct HookInvoker: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Runs the hook of `kind` for `name` on `input`, what the kind receives (an object for a save,
    /// delete or login trigger, a query for `beforeFind`, an array of objects for `afterFind`,
    /// parameters for a function or a job); the answer is what it returns (a before hook's object or
    /// query, `afterFind`'s objects, a function's result), `{}` for a kind that returns nothing. A
    /// job runs to its end and answers its `_JobStatus`. Nothing else is written unless the hook
    /// writes through its store.
    public func invoke(_ kind: HookKind, _ name: String, input: ParseValue, caller: Caller) async throws -> ParseValue {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(kind, name) else { throw ParseError.failed("no \(kind.rawValue) hook for \(name)") }
        guard kind.definition.receives.accepts(input) else {
            throw ParseError.invalidJSON("the \(kind.rawValue) hook takes \(kind.definition.receives == .objectsAndQuery ? "an array of objects" : "a JSON object")")
        }
        switch kind {
        case .beforeSave:
            try ParseNames.validateClassName(name)
            let object = try WriteBody.validated(ParseObject(className: name, json: input.objectValue ?? [:]))
            return .object(try await ObjectWrites(app).runBeforeSave(hook, object, original: nil, caller: caller, holding: nil).object.json)
        case .job:
            return .object(try await BackgroundJobs(app).runToEnd(name, params: input.objectValue ?? [:], caller: caller).json)
        default:
            let answer = try await hooks.run(hook, input: HookPayload(input), caller: caller)
            return kind.definition.returns == .nothing ? [:] : answer
        }
    }
}
