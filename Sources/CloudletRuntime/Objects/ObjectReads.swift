import Cloudlet

/// An app's object reads: gets, finds and counts, as the caller may see them (class-level
/// permissions, ACL and protected fields: ``ClassPermissions``), charged to the request's ``ReadBudget``.
///
/// Each query passes through its class's `beforeFind` hook before it runs, and the objects it found
/// through its `afterFind` hook. The query a `beforeFind` hook answers runs as the caller (ACL,
/// protected fields and the query's checks apply to it as to the client's own), so it cannot widen
/// what the caller reads. An `afterFind` hook receives only what the caller may see, and its answer
/// is the results as it is, as in Parse: objects or fields the hook adds are the app's own
/// decision, as a function's result is.
public struct ObjectReads: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The object `id` of `className` as the caller may see it, with `include`d pointers fetched and
    /// only `keys` kept and `excludeKeys` left out (when given). Throws 101 if there is none the caller may read. Reads are
    /// charged to `budget` (a new one with the app's limit when nil). The class's `beforeFind` hook
    /// sees the get as a query on the object's id (it may add constraints, keys and includes, but
    /// the get stays on that object) and its `afterFind` hook sees the object (if it leaves none, 101).
    public func get(
        _ className: String, id: String, caller: Caller, include: [String] = [], keys: [String]? = nil,
        excludeKeys: [String]? = nil, budget: ReadBudget? = nil
    ) async throws -> ParseObject {
        let permissions = ClassPermissions(app)
        let restriction = try await permissions.check(.get, className, by: caller)
        let asked = ParseQuery(
            className, constraints: ["objectId": .string(id)], limit: 1, keys: keys, include: include, excludeKeys: excludeKeys)
        let query = try await beforeFind(asked, isCount: false, isGet: true, caller: caller)
        let budget = budget ?? app.newBudget()
        let object: ParseObject
        if query == asked {
            object = try await readable(className, id: id, caller: caller)
            try restriction.check(object)
        } else {
            var pinned = query
            pinned.constraints["objectId"] = .string(id)
            pinned.limit = 1
            pinned.skip = 0
            guard let narrowed = Self.narrowed(try await permissions.checkedQuery(pinned, by: caller), by: restriction) else {
                throw ParseError.objectNotFound()
            }
            let found = try await app.stores.objects.find(StorageQuery(query: narrowed, readerIdentities: caller.aclIdentities, budget: budget))
            guard let first = found.first else { throw ParseError.objectNotFound() }
            object = first
        }
        let shown = try await shaped([object], query, caller: caller, budget: budget)
        guard let answer = try await afterFind(shown, query: query, caller: caller).first else { throw ParseError.objectNotFound() }
        return answer
    }

    /// The objects matching `query` that the caller may read, charged to `budget` as for ``get(_:id:caller:include:keys:excludeKeys:budget:)``.
    /// Throws 119 if a caller other than the master key filters or sorts on a protected field.
    public func find(_ query: ParseQuery, caller: Caller, budget: ReadBudget? = nil) async throws -> [ParseObject] {
        try await search(query, counting: false, caller: caller, budget: budget).objects
    }

    /// How many objects match `query` among those the caller may read.
    public func count(_ query: ParseQuery, caller: Caller) async throws -> Int {
        try await search(query, counting: true, returningObjects: false, caller: caller).count ?? 0
    }

    /// A query as `GET /classes/X` runs it: the class's `beforeFind` hook (once, told whether the
    /// query counts) may change or refuse it; then the objects the caller may read (unless `limit`
    /// is 0), which the `afterFind` hook may change or filter; and, when `counting`, how many match
    /// in all. The class-level permissions apply once the hook ran: `find` to the objects, `count`
    /// to the count. Throws 119 if a caller other than the master key filters or sorts on a protected field.
    public func search(
        _ query: ParseQuery, counting: Bool, returningObjects: Bool = true, caller: Caller, budget: ReadBudget? = nil
    ) async throws -> (objects: [ParseObject], count: Int?) {
        try SystemClass.check(.find, query.className, by: caller)
        var query = query
        if !returningObjects { query.limit = 0 }
        query = try await beforeFind(query, isCount: counting, isGet: false, caller: caller)
        let permissions = ClassPermissions(app)
        let finds = returningObjects && query.limit > 0
        let findRestriction = finds ? try await permissions.check(.find, query.className, by: caller) : nil
        let countRestriction = counting ? try await permissions.check(.count, query.className, by: caller) : nil
        let runnable = try await permissions.checkedQuery(query, by: caller)
        var objects: [ParseObject] = []
        if finds, let narrowed = Self.narrowed(runnable, by: findRestriction) {
            let budget = budget ?? app.newBudget()
            let found = try await app.stores.objects.find(StorageQuery(query: narrowed, readerIdentities: caller.aclIdentities, budget: budget))
            let shown = try await shaped(found, query, caller: caller, budget: budget)
            objects = try await afterFind(shown, query: query, caller: caller)
        }
        guard counting else { return (objects, nil) }
        guard let narrowed = Self.narrowed(runnable, by: countRestriction) else { return (objects, 0) }
        return (objects, try await app.stores.objects.count(StorageQuery(query: narrowed, readerIdentities: caller.aclIdentities)))
    }

    /// `query` narrowed to the objects `restriction` lets the caller reach; nil when it lets it reach none.
    private static func narrowed(_ query: ParseQuery, by restriction: ObjectRestriction?) -> ParseQuery? {
        guard let restriction else { return query }
        guard let constraints = restriction.narrowing(query.constraints) else { return nil }
        var narrowed = query
        narrowed.constraints = constraints
        return narrowed
    }

    /// The stored object, if the caller may read it; 101 otherwise.
    private func readable(_ className: String, id: String, caller: Caller) async throws -> ParseObject {
        guard let object = try await app.stores.objects.fetch(className, id: id) else { throw ParseError.objectNotFound() }
        if let identities = caller.aclIdentities, let acl = object.acl, !acl.allowsRead(by: identities) {
            throw ParseError.objectNotFound()
        }
        return object
    }

    /// `query` as the `beforeFind` hook of its class leaves it (`query` itself if there is none);
    /// the hook's error refuses the query.
    private func beforeFind(_ query: ParseQuery, isCount: Bool, isGet: Bool, caller: Caller) async throws -> ParseQuery {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.beforeFind, query.className) else { return query }
        var input = query.json.objectValue ?? [:]
        if isCount { input["count"] = true }
        if isGet { input["get"] = true }
        let answer = try await hooks.run(hook, input: HookPayload(.object(input)), caller: caller)
        let changed = ParseQuery(query.className, json: answer)
        guard changed.limit >= 0, changed.skip >= 0 else {
            throw ParseError.failed("beforeFind hook on \(query.className) answered a negative limit or skip")
        }
        return changed
    }

    /// `objects` as the `afterFind` hook of the query's class leaves them (`objects` themselves if
    /// there is none); the hook's error fails the query.
    private func afterFind(_ objects: [ParseObject], query: ParseQuery, caller: Caller) async throws -> [ParseObject] {
        let hooks = HookRunner(app)
        guard let hook = hooks.hook(.afterFind, query.className) else { return objects }
        let answer = try await hooks.run(
            hook, input: HookPayload(.array(objects.map { .object($0.json) })), original: HookPayload(query.json), caller: caller)
        return (answer.arrayValue ?? []).compactMap { $0.objectValue.map { ParseObject(className: query.className, json: $0) } }
    }

    /// The objects as the caller may see them: the query's includes fetched, protected fields
    /// hidden, its `keys` kept and its `excludeKeys` left out.
    private func shaped(_ objects: [ParseObject], _ query: ParseQuery, caller: Caller, budget: ReadBudget) async throws -> [ParseObject] {
        var objects = objects
        let include = query.includeWithExcludedPaths
        if !include.isEmpty {
            let paths = include.map { $0.split(separator: ".").map(String.init) }
            guard paths.allSatisfy({ $0.count <= ReadBudget.maximumIncludeDepth }) else {
                throw ParseError.invalidQuery("include paths may be at most \(ReadBudget.maximumIncludeDepth) fields deep")
            }
            objects = try await IncludeExpansion(app: app, caller: caller, budget: budget).including(paths, in: objects)
        }
        objects = try await ClassPermissions(app).redacted(objects, by: caller)
        if let excluded = query.excludeKeys, !excluded.isEmpty { objects = objects.map { $0.excluding(excluded) } }
        if let keys = query.keys {
            // `$score` keeps the relevance the store put in `score` (Parse's name for it).
            let kept = Set(keys.compactMap { $0 == "$score" ? "score" : $0.split(separator: ".").first.map(String.init) })
            for index in objects.indices { objects[index].fields = objects[index].fields.filter { kept.contains($0.key) } }
        }
        return objects
    }
}
