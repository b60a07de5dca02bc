import Cloudlet

/// An app's class schemas as `/schemas` and `/purge` serve them to the master key: list, read,
/// create, change (fields, CLPs, indexes) and drop classes, and purge a class's objects. Each change
/// is checked against the class's schema before storage applies it, and the checks of reads and
/// writes see it from the next request on.
public struct ClassSchemas: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The most classes `/schemas` lists.
    public static let maximumListedClasses = 10_000
    /// The most fields `/schemas` lets a class have (beyond the default fields).
    public static let maximumFields = 1000
    /// The most indexes a class may have beyond `_id_`, and the most fields one index may order.
    public static let maximumIndexes = 16, maximumIndexFields = 8

    /// Every class's schema as `/schemas` answers it, the system classes' included, charged to `budget`.
    public func all(caller: Caller, budget: ReadBudget) async throws -> [ParseValue] {
        try Self.requireMaster(caller)
        var byName: [String: StoredClassSchema] = [:]
        for name in StoredClassSchema.listedSystemClasses { byName[name] = StoredClassSchema(className: name) }
        for schema in try await app.stores.schemas.storedClasses(limit: Self.maximumListedClasses) { byName[schema.className] = schema }
        return try byName.keys.sorted().map { name throws(ParseError) in
            let json = presented(byName[name]!)
            try budget.charge(bytes: JSONWriter.byteCount(json))
            return json
        }
    }

    /// The schema of `className`; 103 "Class X does not exist." if there is none.
    public func get(_ className: String, caller: Caller) async throws -> ParseValue {
        try Self.requireMaster(caller)
        return presented(try await existing(className))
    }

    /// Creates `className` from a `/schemas` body (`fields`, `classLevelPermissions`, `indexes`)
    /// and answers its schema; 103 if it exists.
    public func create(_ className: String, body: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        try Self.requireMaster(caller)
        try Self.validateName(className)
        if try await app.schemas.reloaded(className) != nil { throw ParseError(code: 103, message: "Class \(className) already exists.") }
        var schema = StoredClassSchema(className: className)
        let change = try SchemaBody(body).change(to: schema)
        schema.fieldTypes = change.addedFields
        schema.permissions = change.permissions
        schema.indexes = change.addedIndexes
        try await app.stores.schemas.createClass(schema)
        app.schemas.forget(className)
        return presented(try await existing(className))
    }

    /// Changes `className` as a `/schemas` body asks: fields added, or deleted with `{"__op": "Delete"}`,
    /// CLPs replaced, indexes added or deleted; answers the schema as changed. 103 if the class does
    /// not exist, 255 for a field or index that exists already or not at all, and for `_Session`.
    public func update(_ className: String, body: [String: ParseValue], caller: Caller) async throws -> ParseValue {
        try Self.requireMaster(caller)
        let schema = try await existing(className, reading: true)
        // Sessions keep their own rules: each user reaches its own (``UserSessions``).
        guard className != SystemClass.session.name else {
            throw ParseError(code: 255, message: "the schema of _Session cannot be changed")
        }
        try await app.stores.schemas.updateClass(className, try SchemaBody(body).change(to: schema))
        forget(className)
        return presented(try await existing(className))
    }

    /// Drops `className` with its schema, if it holds no objects (255 otherwise); a class that does
    /// not exist is dropped already.
    public func delete(_ className: String, caller: Caller) async throws {
        try Self.requireMaster(caller)
        try Self.validateName(className)
        try await app.stores.schemas.deleteClass(className)
        forget(className)
    }

    /// Deletes every object of `className` and the join rows that relate them, keeping the schema.
    public func purge(_ className: String, caller: Caller) async throws {
        try Self.requireMaster(caller)
        try SystemClass.check(.delete, className, by: caller)
        try await app.stores.schemas.purge(className)
        forget(className)
    }

    /// Forgets what the app's caches hold of `className` once its schema or objects changed behind
    /// the object writes, through this node or another (``StoreChange/classSchema(_:)``): its
    /// schema, and for `_Role` and `_User` every cached session (a field deleted or a purge removes
    /// role links; a purge of `_User` ends every session).
    func forget(_ className: String) {
        app.schemas.forget(className)
        if className == SystemClass.role.name || className == SystemClass.user.name { app.sessionCache.invalidate(.everyone) }
    }

    /// `schema` as `/schemas` answers it, the app's own protected fields of the class among those of
    /// `*` (as Parse Server merges its `protectedFields` option into the CLPs).
    private func presented(_ schema: StoredClassSchema) -> ParseValue {
        guard let own = app.protectedFields.byClass[schema.className], !own.isEmpty else { return schema.json }
        var shown = schema
        var permissions = schema.effectivePermissions
        permissions.protectedFields["*"] = Array(Set(permissions.protectedFields["*"] ?? []).union(own)).sorted()
        shown.permissions = permissions
        return shown.json
    }

    /// The schema of the existing class `className`, read from storage when `reading`; 103 if none.
    private func existing(_ className: String, reading: Bool = false) async throws -> StoredClassSchema {
        try Self.validateName(className)
        let schema = reading ? try await app.schemas.reloaded(className) : try await app.schemas.schema(of: className)
        guard let schema else { throw ParseError(code: 103, message: "Class \(className) does not exist.") }
        return schema
    }

    private static func validateName(_ className: String) throws(ParseError) {
        guard (try? ParseNames.validateClassName(className)) != nil || className == SystemClass.session.name else {
            throw .invalidClassName(className)
        }
    }

    private static func requireMaster(_ caller: Caller) throws(ParseError) {
        guard caller.isMaster else { throw .masterKeyRequired }
    }
}
