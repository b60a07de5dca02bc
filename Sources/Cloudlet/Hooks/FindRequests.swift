/// What a `beforeFind` hook receives: the query about to run, which the hook may change.
///
/// The query runs as the caller whatever the hook sets: its ACL and protected fields still apply,
/// and for a get the hook's query stays on the one object asked for.
public struct BeforeFindRequest: HookRequest {
    /// The query as it will run; changes the hook makes here (where, order, limit, skip, keys,
    /// include) are what runs. Its class cannot be changed.
    public var query: ParseQuery
    /// Whether the query asks for a count (`count=1`, or a store's `count`).
    public let isCount: Bool
    /// Whether the query is a get by id (`GET /classes/X/<id>`, or a store's `get`).
    public let isGet: Bool
    /// The call's context.
    public let context: HookContext

    package init(query: ParseQuery, isCount: Bool, isGet: Bool, context: HookContext) {
        self.query = query
        self.isCount = isCount
        self.isGet = isGet
        self.context = context
    }
}

/// What an `afterFind` hook receives: the objects a query found, as the caller may see them, which
/// the hook may change or filter; what it leaves in ``objects`` is the answer.
public struct AfterFindRequest: HookRequest {
    /// The objects found (after the `beforeFind` hook, ACL, protected fields, `keys` and `include`);
    /// what the hook leaves here replaces the results.
    public var objects: [ParseObject]
    /// The query that found them.
    public let query: ParseQuery
    /// The call's context.
    public let context: HookContext

    package init(objects: [ParseObject], query: ParseQuery, context: HookContext) {
        self.objects = objects
        self.query = query
        self.context = context
    }
}
