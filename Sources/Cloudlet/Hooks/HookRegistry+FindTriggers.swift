/// The registration methods of the find kinds, which run on queries (`GET /classes/X`), counts,
/// gets (`GET /classes/X/<id>`) and the finds, counts and gets of a hook's store.
///
/// ```swift
/// hooks.beforeFind("Messages") { request in
///     request.query.constraints["hidden"] = ["$ne": true]
///     request.query.limit = min(request.query.limit, 50)
/// }
/// hooks.afterFind("Messages") { request in
///     request.objects.removeAll { $0["flagged"] == true }
/// }
/// ```
extension HookRegistry {
    /// A `beforeFind` handler: may change `request.query`, or throw to refuse the query.
    public typealias BeforeFindHandler = @Sendable (inout BeforeFindRequest) async throws -> Void
    /// An `afterFind` handler: may change or filter `request.objects`, which become the results.
    public typealias AfterFindHandler = @Sendable (inout AfterFindRequest) async throws -> Void

    /// Runs `handler` before each query, count or get on `className`; the query it leaves runs,
    /// and throwing refuses the query with the hook's error (141 unless it is a ``ParseError``).
    public mutating func beforeFind(
        _ className: String, timeLimit: Duration = HookKind.beforeFind.defaultTimeLimit, _ handler: @escaping BeforeFindHandler
    ) {
        register(.beforeFind, className, timeLimit: timeLimit) { call in
            var request = BeforeFindRequest(
                query: ParseQuery(className, json: call.input), isCount: call.input["count"]?.boolValue ?? false,
                isGet: call.input["get"]?.boolValue ?? false, context: call.context)
            try await handler(&request)
            request.query.className = className
            return request.query.json
        }
    }

    /// Runs `handler` on the objects each query or get on `className` found; the objects it leaves
    /// are the results. Throwing fails the query with the hook's error, as in Parse.
    public mutating func afterFind(
        _ className: String, timeLimit: Duration = HookKind.afterFind.defaultTimeLimit, _ handler: @escaping AfterFindHandler
    ) {
        register(.afterFind, className, timeLimit: timeLimit) { call in
            var request = AfterFindRequest(
                objects: call.objects(of: className), query: ParseQuery(className, json: call.original ?? [:]), context: call.context)
            try await handler(&request)
            return .array(request.objects.map { .object($0.json) })
        }
    }
}

extension ParseQuery {
    /// The query on `className` that `json` describes (``json``'s members; a missing or different
    /// `className` is ignored).
    package init(_ className: String, json: ParseValue) {
        var members = json.objectValue ?? [:]
        members["className"] = .string(className)
        self = (try? ParseQuery(json: .object(members))) ?? ParseQuery(className)
    }
}

extension HookRegistry.Call {
    /// The input as objects of `className` (elements that are not objects are left out).
    func objects(of className: String) -> [ParseObject] {
        (input.arrayValue ?? []).compactMap { $0.objectValue.map { ParseObject(className: className, json: $0) } }
    }
}
