import Cloudlet

/// The find kinds' call sites: a query passes through the class's `beforeFind` hook before it runs,
/// and the objects it found through its `afterFind` hook.
///
/// What a hook may and may not do to the caller's access: the query a `beforeFind` hook answers
/// runs as the caller (ACL, protected fields and the query's checks apply to it as to the client's
/// own), so it cannot widen what the caller reads. An `afterFind` hook receives only what the caller
/// may see, and its answer is the results as it is, as in Parse: objects or fields the hook adds
/// are the app's own decision, as a function's result is.
extension AppRuntime {
    /// `query` as the `beforeFind` hook of its class leaves it (`query` itself if there is none);
    /// the hook's error refuses the query.
    package func beforeFind(_ query: ParseQuery, isCount: Bool, isGet: Bool, caller: Caller) async throws -> ParseQuery {
        guard let hook = hook(.beforeFind, query.className) else { return query }
        var input = query.json.objectValue ?? [:]
        if isCount { input["count"] = true }
        if isGet { input["get"] = true }
        let answer = try await runHook(hook, input: HookPayload(.object(input)), caller: caller)
        let changed = ParseQuery(query.className, json: answer)
        guard changed.limit >= 0, changed.skip >= 0 else {
            throw ParseError.failed("beforeFind hook on \(query.className) answered a negative limit or skip")
        }
        return changed
    }

    /// `objects` as the `afterFind` hook of the query's class leaves them (`objects` themselves if
    /// there is none); the hook's error fails the query.
    package func afterFind(_ objects: [ParseObject], query: ParseQuery, caller: Caller) async throws -> [ParseObject] {
        guard let hook = hook(.afterFind, query.className) else { return objects }
        let answer = try await runHook(
            hook, input: HookPayload(.array(objects.map { .object($0.json) })), original: HookPayload(query.json), caller: caller)
        return (answer.arrayValue ?? []).compactMap { $0.objectValue.map { ParseObject(className: query.className, json: $0) } }
    }
}
