import Cloudlet

extension AppRuntime {
    /// The object `id` of `className` as the caller may see it, with `include`d pointers fetched and
    /// only `keys` kept and `excludeKeys` left out (when given). Throws 101 if there is none the caller may read. Reads are
    /// charged to `budget` (a new one with the app's limit when nil). The class's `beforeFind` hook
    /// sees the get as a query on the object's id (it may add constraints, keys and includes, but
    /// the get stays on that object) and its `afterFind` hook sees the object (if it leaves none, 101).
    public func get(
        _ className: String, id: String, caller: Caller, include: [String] = [], keys: [String]? = nil,
        excludeKeys: [String]? = nil, budget: ReadBudget? = nil
    ) async throws -> ParseObject {
        try SystemClass.check(.get, className, by: caller)
        let asked = ParseQuery(
            className, constraints: ["objectId": .string(id)], limit: 1, keys: keys, include: include, excludeKeys: excludeKeys)
        let query = try await beforeFind(asked, isCount: false, isGet: true, caller: caller)
        let budget = budget ?? newBudget()
        let object: ParseObject
        if query == asked {
            object = try await readable(className, id: id, caller: caller)
        } else {
            var pinned = query
            pinned.constraints["objectId"] = .string(id)
            pinned.limit = 1
            pinned.skip = 0
            try protectedFields.checkQueryable(pinned, by: caller)
            let found = try await stores.objects.find(StorageQuery(query: pinned, readerIdentities: caller.aclIdentities, budget: budget))
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
    /// in all. Throws 119 if a caller other than the master key filters or sorts on a protected field.
    public func search(
        _ query: ParseQuery, counting: Bool, returningObjects: Bool = true, caller: Caller, budget: ReadBudget? = nil
    ) async throws -> (objects: [ParseObject], count: Int?) {
        try SystemClass.check(.find, query.className, by: caller)
        var query = query
        if !returningObjects { query.limit = 0 }
        query = try await beforeFind(query, isCount: counting, isGet: false, caller: caller)
        try protectedFields.checkQueryable(query, by: caller)
        var objects: [ParseObject] = []
        if returningObjects, query.limit > 0 {
            let budget = budget ?? newBudget()
            let found = try await stores.objects.find(StorageQuery(query: query, readerIdentities: caller.aclIdentities, budget: budget))
            let shown = try await shaped(found, query, caller: caller, budget: budget)
            objects = try await afterFind(shown, query: query, caller: caller)
        }
        guard counting else { return (objects, nil) }
        return (objects, try await stores.objects.count(StorageQuery(query: query, readerIdentities: caller.aclIdentities)))
    }

    /// A budget for one request, with the app's limit.
    package func newBudget() -> ReadBudget {
        ReadBudget(maximumBytes: limits.maximumResponseBytes)
    }

    /// The stored object, if the caller may read it; 101 otherwise.
    package func readable(_ className: String, id: String, caller: Caller) async throws -> ParseObject {
        guard let object = try await stores.objects.fetch(className, id: id) else { throw ParseError.objectNotFound() }
        if let identities = caller.aclIdentities, let acl = object.acl, !acl.allowsRead(by: identities) {
            throw ParseError.objectNotFound()
        }
        return object
    }

    /// The stored object, if the caller may write it (whether or not it may read it, as in Parse);
    /// 101 otherwise.
    package func writable(_ className: String, id: String, caller: Caller) async throws -> ParseObject {
        guard let object = try await stores.objects.fetch(className, id: id) else { throw ParseError.objectNotFound() }
        try Self.checkWrite(object, caller.aclIdentities)
        return object
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
            objects = try await IncludeExpansion(runtime: self, caller: caller, budget: budget).including(paths, in: objects)
        }
        objects = objects.map { protectedFields.redacted($0, for: caller) }
        objects = objects.map { $0.excluding(query.excludeKeys ?? []) }
        if let keys = query.keys {
            let kept = Set(keys.compactMap { $0.split(separator: ".").first.map(String.init) })
            for index in objects.indices { objects[index].fields = objects[index].fields.filter { kept.contains($0.key) } }
        }
        return objects
    }
}
