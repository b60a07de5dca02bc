import Cloudlet

/// Runs an app's hooks in its worker processes: a hook that traps or hangs costs only its own
/// worker, which the pool replaces. Calls travel as CloudletWire messages; store calls come back the
/// same way and run through the invocation's own store.
public struct ProcessHookExecutor: HookExecutor {
    /// The pool whose workers run the hooks.
    public let pool: WorkerPool

    /// An executor over `pool`.
    public init(pool: WorkerPool) {
        self.pool = pool
    }

    public var hooks: [HookRegistry.Summary] { pool.announcedHooks }

    public func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary? {
        pool.hook(kind, name)
    }

    public var isReady: Bool { pool.isReady }

    public var queuedInvocations: Int { pool.queuedInvocations }

    public func beforeSave(_ request: BeforeSaveRequest) async throws -> ParseObject {
        let className = request.object.className
        let value = try await pool.invoke(
            .beforeSave, className, input: .object(request.object.json), original: request.original.map { .object($0.json) },
            context: request.context)
        return ParseObject(className: className, json: value.objectValue ?? [:])
    }

    public func afterSave(_ request: AfterSaveRequest) async throws {
        _ = try await pool.invoke(
            .afterSave, request.object.className, input: .object(request.object.json),
            original: request.original.map { .object($0.json) }, context: request.context)
    }

    public func delete(_ kind: HookKind, _ request: DeleteRequest) async throws {
        _ = try await pool.invoke(kind, request.object.className, input: .object(request.object.json), original: nil, context: request.context)
    }

    public func function(_ name: String, _ request: FunctionRequest) async throws -> ParseValue {
        try await pool.invoke(.function, name, input: .object(request.params), original: nil, context: request.context)
    }

    public func job(_ name: String, _ request: JobRequest) async throws {
        _ = try await pool.invoke(.job, name, input: .object(request.params), original: nil, context: request.context)
    }
}
