import Cloudlet

/// The store a hook sees: the app's ``ObjectReads``, ``ObjectWrites``, ``CloudFunctions`` and ``BackgroundJobs``, acting as
/// the hook's caller, with the hook's deadline and depth carried into every call so that nested
/// hooks get only the time that is left. A call made once the deadline has passed is refused (124),
/// and a write still running then does not commit (see ``WriteDeadline``). In a before hook, the
/// push jobs it records wait for the hook's write (see ``PushJobBuffer``). A hook's calls are its
/// own: a hook run for an operation of a transactional batch writes outside its transaction.
struct RuntimeHookStore: HookStore, JobProgressReporter {
    let app: AppContext
    let caller: Caller

    func get(_ className: String, id: String) async throws -> ParseObject? {
        try await withinDeadline {
            do {
                return try await ObjectReads(app).get(className, id: id, caller: caller)
            } catch let error as ParseError where error.code == ParseError.objectNotFound().code {
                return nil
            }
        }
    }

    func find(_ query: ParseQuery) async throws -> [ParseObject] {
        try await withinDeadline { try await ObjectReads(app).find(query, caller: caller) }
    }

    func count(_ query: ParseQuery) async throws -> Int {
        try await withinDeadline { try await ObjectReads(app).count(query, caller: caller) }
    }

    func save(_ object: ParseObject) async throws -> ParseObject {
        var body = object.fields
        if let acl = object.acl { body["ACL"] = acl.json }
        return try await withinDeadline {
            if let id = object.objectId {
                return try await ObjectWrites(app).update(object.className, id: id, body: body, caller: caller.writingOnItsOwn).object
            }
            if object.className == "_PushStatus", let heldJobs = caller.heldPushJobs {
                return try await ObjectWrites(app).holdPushJob(body: body, caller: caller, in: heldJobs)
            }
            return try await ObjectWrites(app).create(object.className, body: body, caller: caller.writingOnItsOwn).object
        }
    }

    func delete(_ className: String, id: String) async throws {
        try await withinDeadline { try await ObjectWrites(app).delete(className, id: id, caller: caller.writingOnItsOwn) }
    }

    func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue {
        try await withinDeadline { try await CloudFunctions(app).call(name, params: params, caller: caller.writingOnItsOwn) }
    }

    func config() async throws -> [String: ParseValue] {
        try await withinDeadline { try await AppConfig(app).read(caller: caller).params }
    }

    func reportJobProgress(_ message: String) async throws {
        guard let run = caller.jobRun else { throw ParseError.failed("only a job reports progress") }
        try await BackgroundJobs(app).recordProgress(message, of: run)
    }

    var asMaster: any HookStore {
        var master = caller
        master.isMaster = true
        return RuntimeHookStore(app: app, caller: master)
    }

    /// Runs `operation` under the hook's deadline, which its writes check right before they commit,
    /// and outside any shared transaction the hook's caller joined.
    private func withinDeadline<Value>(_ operation: () async throws -> Value) async throws -> Value {
        // Only a hook of a transactional batch's operation has a shared transaction to leave.
        guard SharedTransactionMember.current != nil else { return try await fenced(operation) }
        return try await SharedTransactionMember.$current.withValue(nil) { try await fenced(operation) }
    }

    /// Runs `operation` under the hook's deadline, if its caller has one.
    private func fenced<Value>(_ operation: () async throws -> Value) async throws -> Value {
        guard let deadline = caller.deadline else { return try await operation() }
        let fence = WriteDeadline(deadline: deadline, clock: app.clock)
        try fence.check()
        return try await WriteDeadline.$current.withValue(fence) { try await operation() }
    }
}
