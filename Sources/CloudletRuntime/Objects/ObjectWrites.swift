import Cloudlet
import Foundation
import NIOCore

/// What a save answers: the object as stored, and the fields the client should be told about
/// (those a before hook changed, and the results of field operations), as Parse's REST API does.
public struct SaveResult: Sendable {
    /// The object as stored.
    public let object: ParseObject
    /// Fields whose stored value the client did not send as such.
    public let changedFields: [String: ParseValue]
    /// Whether the save created the object (false when a create updated a stored one, as an
    /// installation's upsert does).
    public var isNew = true
}

/// An app's object writes: creates, updates and deletes, each with its class's rules, its before
/// hook (which may change or refuse it) and its after hook, queued in the write's own transaction
/// and run right after it (``AfterHooks``).
public struct ObjectWrites: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Creates an object of `className` from a REST body: before hook, one transaction with the
    /// after hook queued, then the after hook. `json` is the body's JSON as it came, if the caller
    /// has it and it holds exactly `body`'s members: a before hook in a worker is sent it as it is
    /// when nothing in it needs rewriting.
    public func create(_ className: String, body: [String: ParseValue], json: ByteBuffer? = nil, caller: Caller) async throws -> SaveResult {
        if SystemClass.named(className)?.saves == .installations { return try await Installations(app).create(body: body, caller: caller) }
        return try await createObject(className, body: body, json: json, caller: caller)
    }

    /// Creates an object as ``create(_:body:json:caller:)`` does, with no class's own rules.
    func createObject(_ className: String, body: [String: ParseValue], json: ByteBuffer? = nil, caller: Caller) async throws -> SaveResult {
        try await create(className, body: body, json: json, caller: caller) { object, relations, event, heldJobs in
            try await app.stores.objects.insert(object, relations: relations, outbox: event, alongside: heldJobs)
        }
    }

    /// Creates an object as ``create(_:body:json:caller:)`` does, writing it with `persist` (which must
    /// commit the object, the join rows of its relation fields, the after hook's event and the push
    /// jobs its before hook recorded in one transaction). `serverSet` are fields of the server's own
    /// (a new user's `emailVerified`), set whoever calls, before the before hook runs.
    func create(
        _ className: String, body: [String: ParseValue], json: ByteBuffer? = nil, serverSet: [String: ParseValue] = [:], caller: Caller,
        persist: (ParseObject, [String: RelationChange], OutboxEvent?, [ParseObject]) async throws -> Void
    ) async throws -> SaveResult {
        let body = try WriteBody(body, isCreate: true, json: serverSet.isEmpty ? json : nil)
        return try await create(className, changes: body.changes, asSent: body.asSent, serverSet: serverSet, caller: caller, persist: persist)
    }

    /// Creates an object as ``create(_:body:json:serverSet:caller:persist:)`` does, from `requested`,
    /// the body already read; `asSent` is the new object's JSON as the client sent it (see
    /// ``WriteBody/asSent``), if it is.
    func create(
        _ className: String, changes requested: ObjectChanges, asSent: ByteBuffer? = nil, serverSet: [String: ParseValue] = [:],
        caller: Caller, persist: (ParseObject, [String: RelationChange], OutboxEvent?, [ParseObject]) async throws -> Void
    ) async throws -> SaveResult {
        let permissions = ClassPermissions(app)
        _ = try await permissions.check(.create, className, by: caller)
        try Self.checkClientWritable(className, requested, caller)
        try RoleRules.checkChanges(className, requested)
        var proposed = try requested.applied(to: ParseObject(className: className))
        proposed.fields.merge(serverSet) { _, server in server }
        var object = proposed
        // The before hook's push jobs wait for this write.
        var heldJobs: PushJobBuffer?
        let hooks = HookRunner(app)
        if let beforeSave = hooks.hook(.beforeSave, className) {
            heldJobs = PushJobBuffer()
            object = try await runBeforeSave(beforeSave, proposed, asSent: asSent, original: nil, caller: caller, holding: heldJobs).object
        }
        try RoleRules.checkCreated(object)
        try await permissions.checkAddsFields(object.fields.keys, to: className, isUpdate: false, by: caller)
        try await UploadedFiles(app).checkExist(in: object.fields.values)
        object = FileURLs.presenting(object, with: app.stores.objects.fileURLs)
        let now = app.clock.now
        object.objectId = ObjectId.new()
        object.createdAt = now
        object.updatedAt = now
        defer { invalidateSessions(afterWriting: className) }
        try await AfterHooks(app).writeThenRun(hooks.hook(.afterSave, className)) { [object] hold in
            let event = hold.map { OutboxEvent(kind: .afterSave, object: object, original: nil, caller: caller, hold: $0) }
            try await persist(object, requested.relations, event, heldJobs?.held ?? [])
            return ((), event)
        }
        return SaveResult(object: object, changedFields: object.fields.filter { proposed.fields[$0.key] != $0.value })
    }

    /// Updates the object `id` of `className` from a REST body. Field operations are applied to the
    /// stored values inside the write transaction, so concurrent increments all count.
    public func update(_ className: String, id: String, body: [String: ParseValue], caller: Caller) async throws -> SaveResult {
        // The class's own rules before its body is read; its class-level permissions in the update itself.
        try SystemClass.check(.update, className, by: caller)
        if SystemClass.named(className)?.saves == .installations {
            return try await Installations(app).update(id: id, body: body, caller: caller)
        }
        let changes = try WriteBody(body, isCreate: false).changes
        return try await update(className, id: id, changes: changes, caller: caller, systemRulesChecked: true)
    }

    /// Updates the object as ``update(_:id:body:caller:)`` does, with `changes` already validated;
    /// `serverSet` are changes of the server's own (`emailVerified` on a new email), made whoever calls.
    /// `systemRulesChecked` tells that the caller has passed ``SystemClass/check(_:_:by:)`` already.
    func update(
        _ className: String, id: String, changes: ObjectChanges, serverSet: [String: FieldChange] = [:], caller: Caller,
        systemRulesChecked: Bool = false
    ) async throws -> SaveResult {
        let permissions = ClassPermissions(app)
        let restriction =
            try await systemRulesChecked
            ? permissions.checkGrant(.update, className, by: caller) : permissions.check(.update, className, by: caller)
        var changes = changes
        try Self.checkClientWritable(className, changes, caller)
        changes.fields.merge(serverSet) { _, server in server }
        var hookChanged: Set<String> = []
        var original: ParseObject?
        let hooks = HookRunner(app)
        let beforeSave = hooks.hook(.beforeSave, className)
        let afterSave = hooks.hook(.afterSave, className)
        if beforeSave != nil || afterSave != nil {
            original = try await writable(className, id: id, caller: caller, restriction: restriction)
        }
        // The before hook's push jobs wait for this write.
        var heldJobs: PushJobBuffer?
        if let beforeSave, let current = original {
            heldJobs = PushJobBuffer()
            let proposed = try changes.applied(to: current)
            let (object, changed) = try await runBeforeSave(beforeSave, proposed, original: current, caller: caller, holding: heldJobs)
            for key in changed { changes.fields[key] = object.fields[key].map(FieldChange.set) ?? .operation(.delete) }
            hookChanged = changed
            if object.acl != proposed.acl {
                changes.acl = object.acl
                changes.removesACL = object.acl == nil
            }
        }
        try RoleRules.checkChanges(className, changes)
        let written = changes.fields.filter { if case .operation(.delete) = $0.value { false } else { true } }.keys
        try await permissions.checkAddsFields(written, to: className, isUpdate: true, by: caller)
        try await UploadedFiles(app).checkExist(in: UploadedFiles.writtenValues(changes))
        let identities = caller.aclIdentities
        defer { invalidateSessions(afterWriting: className, endingSessionsOf: changes.password == nil ? nil : id) }
        let saved = try await AfterHooks(app).writeThenRun(afterSave) { [changes, heldJobs, original] hold in
            let outbox = AfterHooks.event(.afterSave, original: original, caller: caller, hold: hold)
            return try await app.stores.objects.update(
                className, id: id, changes: changes, updatedAt: app.clock.now,
                check: { current in
                    try Self.checkWrite(current, identities, restriction)
                    try RoleRules.checkKeepsName(current, changes)
                }, outbox: outbox, alongside: heldJobs?.held ?? [])
        }
        let reported = changes.fields.compactMap { key, change -> (String, ParseValue)? in
            // Parse answers the results of operations, but not a relation's.
            if case .operation(.relation) = change { return nil }
            guard case .operation = change else { return hookChanged.contains(key) ? (key, saved.fields[key] ?? .null) : nil }
            return (key, saved.fields[key] ?? .null)
        }
        return SaveResult(object: saved, changedFields: Dictionary(uniqueKeysWithValues: reported))
    }

    /// Deletes the object `id` of `className`: before hook (which may refuse), one transaction with
    /// the after hook queued, then the after hook.
    public func delete(_ className: String, id: String, caller: Caller) async throws {
        let restriction = try await ClassPermissions(app).check(.delete, className, by: caller)
        let object = try await writable(className, id: id, caller: caller, restriction: restriction)
        let hooks = HookRunner(app)
        if let beforeDelete = hooks.hook(.beforeDelete, className) {
            _ = try await hooks.run(beforeDelete, input: HookPayload(object), caller: caller)
        }
        let identities = caller.aclIdentities
        defer { invalidateSessions(afterWriting: className, endingSessionsOf: id) }
        try await AfterHooks(app).writeThenRun(hooks.hook(.afterDelete, className)) { hold in
            let outbox = AfterHooks.event(.afterDelete, original: nil, caller: caller, hold: hold)
            let deleted = try await app.stores.objects.delete(
                className, id: id, check: { current in try Self.checkWrite(current, identities, restriction) }, outbox: outbox)
            return ((), deleted)
        }
    }

    /// The stored object, if the caller may write it (whether or not it may read it, as in Parse):
    /// its ACL and the pointer permissions of `restriction` let it; 101 otherwise.
    func writable(_ className: String, id: String, caller: Caller, restriction: ObjectRestriction? = nil) async throws -> ParseObject {
        guard let object = try await app.stores.objects.fetch(className, id: id) else { throw ParseError.objectNotFound() }
        try Self.checkWrite(object, caller.aclIdentities, restriction)
        return object
    }

    /// Runs `hook`, the before hook of `proposed`'s class; the push jobs it records wait in
    /// `heldJobs` for the write to store them with the object (without a buffer, they are stored at
    /// once); `asSent` is `proposed`'s JSON as the client sent it, if it is. Answers the object as
    /// the hook left it and the names of the fields it set or removed; only those are validated again.
    func runBeforeSave(
        _ hook: HookRegistry.Summary, _ proposed: ParseObject, asSent: ByteBuffer? = nil, original: ParseObject?, caller: Caller,
        holding heldJobs: PushJobBuffer?
    ) async throws -> (object: ParseObject, changedFields: Set<String>) {
        let className = proposed.className
        var hookCaller = caller
        hookCaller.heldPushJobs = heldJobs
        let input = asSent.map { HookPayload(proposed, json: $0) } ?? HookPayload(proposed)
        let answer = try await HookRunner(app).run(hook, input: input, original: original.map(HookPayload.init), caller: hookCaller)
        // The SDK answers what the hook changed (``ObjectPatch``), not the whole object.
        guard let patch = ObjectPatch(answer) else { throw ParseError.failed("beforeSave hook on \(className) answered no changes") }
        var (object, changed) = try WriteBody.applying(patch, to: proposed)
        object.className = className
        object.objectId = original?.objectId
        object.createdAt = original?.createdAt
        object.updatedAt = original?.updatedAt
        return (object, changed)
    }

    /// Creates the push job `body` of a before hook (as `_PushStatus`, with its id) in `heldJobs`
    /// instead of storing it: the hook's write stores it, or drops it if it fails.
    func holdPushJob(body: [String: ParseValue], caller: Caller, in heldJobs: PushJobBuffer) async throws -> ParseObject {
        try await create("_PushStatus", body: body, caller: caller.writingOnItsOwn) { job, _, _, _ in heldJobs.hold(job) }.object
    }

    /// Fields of `_User` that only the server (or the master key) sets.
    static let serverWrittenUserFields: Set<String> = ["emailVerified", "authData", "sessionToken"]

    /// Throws 119, before anything is written, for a client setting a field only the server sets.
    static func checkClientWritable(_ className: String, _ changes: ObjectChanges, _ caller: Caller) throws {
        guard !caller.isMaster, className == SystemClass.user.name,
            let field = changes.fields.keys.first(where: serverWrittenUserFields.contains)
        else { return }
        throw ParseError(code: 119, message: "clients may not set \(field)", httpStatus: 403)
    }

    /// Tells the app's ``SessionCache`` what a write of `className` made stale, once it is done
    /// (done, refused or rolled back alike: such a write is rare, a stale session or role is not
    /// harmless): any write of `_Role` changes roles, so every entry goes; a user deleted or given a
    /// new password (`endingSessionsOf`) loses its sessions.
    private func invalidateSessions(afterWriting className: String, endingSessionsOf userId: String? = nil) {
        if className == SystemClass.role.name {
            app.sessionCache.invalidate(.everyone)
        } else if className == SystemClass.user.name, let userId {
            app.sessionCache.invalidate(.user(id: userId))
        }
    }

    /// Throws "not found" (as Parse does, so as not to reveal the object) if the caller may not
    /// write it: its ACL, or the pointer permissions of `restriction`, refuse.
    static func checkWrite(_ object: ParseObject, _ identities: [String]?, _ restriction: ObjectRestriction? = nil) throws {
        try restriction.check(object)
        guard let identities, let acl = object.acl else { return }
        guard acl.allowsWrite(by: identities) else { throw ParseError.objectNotFound() }
    }
}
