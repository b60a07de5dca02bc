import Cloudlet

/// The one check every read and write of an app's objects passes, whatever asks (REST, batch, a
/// hook's store, `include`, an inner query): the rules of Parse's own classes (``SystemClass``),
/// the app's `allowClientClassCreation` setting, and the class's class-level permissions, as
/// Parse Server applies them. The master key passes all but the system classes' rules.
struct ClassPermissions {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Throws when `caller` may not do `operation` on `className`: 103 for a class name that is not
    /// valid, the system classes' refusals, 119 for a client reaching a class that does not exist
    /// when the app does not let clients create classes, 101 when the CLPs ask for a user and there
    /// is none, and 119 "Permission denied for action … on class …." when the CLPs do not grant it.
    /// Answers what the grant still asks of each object (pointer permissions), nil for nothing.
    func check(_ operation: ClassLevelPermissions.Operation, _ className: String, by caller: Caller) async throws -> ObjectRestriction? {
        try SystemClass.check(Self.systemOperation(operation), className, by: caller)
        return try await checkGrant(operation, className, by: caller)
    }

    /// ``check(_:_:by:)`` past the system classes' rules, for a caller that has passed them already.
    func checkGrant(_ operation: ClassLevelPermissions.Operation, _ className: String, by caller: Caller) async throws -> ObjectRestriction? {
        guard !caller.isMaster else { return nil }
        return try Self.grant(
            operation, className, schema: try await app.schemas.schema(of: className), allowsClientClassCreation: app.allowsClientClassCreation,
            caller: caller)
    }

    /// ``checkGrant(_:_:by:)`` with the class's `schema` (nil for a class that does not exist) at hand.
    static func grant(
        _ operation: ClassLevelPermissions.Operation, _ className: String, schema: StoredClassSchema?, allowsClientClassCreation: Bool,
        caller: Caller
    ) throws -> ObjectRestriction? {
        guard !caller.isMaster else { return nil }
        guard let schema else {
            guard allowsClientClassCreation else {
                throw ParseError(code: 119, message: "This user is not allowed to access non-existent class: \(className)", httpStatus: 403)
            }
            return nil
        }
        return try restriction(operation, schema, caller: caller, isUpdate: false)
    }

    /// Throws 119 unless `caller` may add the fields of `fieldNames` that the class `className` does
    /// not have yet (its `addField` CLP); `isUpdate` tells an update (where pointer permissions
    /// grant it) from a create (where they do not). A class that does not exist takes any field.
    func checkAddsFields(_ fieldNames: some Collection<String>, to className: String, isUpdate: Bool, by caller: Caller) async throws {
        guard !caller.isMaster, !fieldNames.isEmpty, var schema = try await app.schemas.schema(of: className) else { return }
        do {
            // A caller who may add fields needs no look at which fields are new.
            _ = try Self.restriction(.addField, schema, caller: caller, isUpdate: isUpdate)
            return
        } catch {}
        if Self.hasNewField(fieldNames, schema) {
            // Another write may have added it since the schema was read.
            guard let fresh = try await app.schemas.reloaded(className) else { return }
            schema = fresh
        }
        guard Self.hasNewField(fieldNames, schema) else { return }
        _ = try Self.restriction(.addField, schema, caller: caller, isUpdate: isUpdate)
    }

    /// How `include` may read objects of `className` for `caller`: nil when the caller may not
    /// `get` them (their pointers stay pointers), else what each object must meet.
    func includable(_ className: String, by caller: Caller) async throws -> IncludeAccess? {
        do {
            return IncludeAccess(restriction: try await check(.get, className, by: caller))
        } catch let error as ParseError where [101, 103, 119].contains(error.code) {
            return nil
        }
    }

    /// What `include` may fetch of a class: the objects that meet `restriction` (all when nil).
    struct IncludeAccess {
        let restriction: ObjectRestriction?
    }

    /// `query` as `caller` may run it: throws 119 when it filters or sorts on a field hidden from the
    /// caller, or reaches through an inner query (`$inQuery`, `$select`, …) a class the caller may
    /// not `find` or a hidden field of it (the inner query's `where` and its `key`); each inner
    /// query is narrowed to the objects its class's pointer permissions let the caller find.
    func checkedQuery(_ query: ParseQuery, by caller: Caller) async throws -> ParseQuery {
        guard !caller.isMaster else { return query }
        try await checkFields(ProtectedFields.fieldPaths(of: query), of: query.className, by: caller)
        var checked = query
        checked.constraints = try await checkedInnerQueries(in: query.constraints, by: caller)
        return checked
    }

    private func checkedInnerQueries(in constraints: [String: ParseValue], by caller: Caller) async throws -> [String: ParseValue] {
        try await InnerQuery.replacingWheres(in: constraints) { inner in
            let restriction = try await check(.find, inner.className, by: caller)
            try await checkFields(inner.key.map { [$0] } ?? [], of: inner.className, by: caller)
            let checked = try await checkedQuery(inner.query, by: caller).constraints
            guard let restriction else { return checked }
            // No user: the inner query finds nothing.
            return restriction.narrowing(checked) ?? ["objectId": ["$in": []]]
        }
    }

    /// `objects` (of one class) without the fields hidden from `caller`.
    func redacted(_ objects: [ParseObject], by caller: Caller) async throws -> [ParseObject] {
        guard !caller.isMaster, let className = objects.first?.className else { return objects }
        let permissions = try await app.schemas.schema(of: className)?.effectivePermissions ?? .open
        return objects.map { app.protectedFields.redacted($0, for: caller, permissions: permissions) }
    }

    private func checkFields(_ paths: [String], of className: String, by caller: Caller) async throws {
        guard !paths.isEmpty else { return }
        let permissions = try await app.schemas.schema(of: className)?.effectivePermissions ?? .open
        let hidden = app.protectedFields.hidden(className, object: nil, for: caller, permissions: permissions)
        try ProtectedFields.checkQueryable(paths, of: className, hidden: hidden)
    }

    /// Parse Server's `validatePermission` for a class that exists.
    private static func restriction(
        _ operation: ClassLevelPermissions.Operation, _ schema: StoredClassSchema, caller: Caller, isUpdate: Bool
    ) throws -> ObjectRestriction? {
        let permissions = schema.effectivePermissions
        let grant = permissions.grants[operation] ?? ClassLevelPermissions.Grant()
        let identities = caller.aclIdentities ?? []
        if identities.contains(where: grant.entries.contains) { return nil }
        if grant.entries.contains("requiresAuthentication") {
            guard caller.userId != nil else {
                throw ParseError(code: 101, message: "Permission denied, user needs to be authenticated.")
            }
            return nil
        }
        let denied = ParseError(code: 119, message: "Permission denied for action \(operation.rawValue) on class \(schema.className).", httpStatus: 403)
        let userFields = operation.reads ? permissions.readUserFields : permissions.writeUserFields
        guard operation != .create else { throw denied }
        var fields = userFields
        if operation != .addField || isUpdate { fields += grant.pointerFields.filter { !userFields.contains($0) } }
        guard !fields.isEmpty else { throw denied }
        let all = schema.allFields
        return ObjectRestriction(userId: caller.userId, fields: fields.map { ($0, all[$0] == .some(.array)) })
    }

    /// Whether one of `fieldNames` is not a field of `schema` yet.
    private static func hasNewField(_ fieldNames: some Collection<String>, _ schema: StoredClassSchema) -> Bool {
        let known = schema.allFields
        return fieldNames.contains { known[$0] == nil }
    }

    private static func systemOperation(_ operation: ClassLevelPermissions.Operation) -> SystemClass.Operation {
        switch operation {
        case .get: .get
        case .find, .count: .find
        case .create: .create
        case .update, .addField: .update
        case .delete: .delete
        }
    }
}
