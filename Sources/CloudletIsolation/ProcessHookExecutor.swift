import Cloudlet
import CloudletRuntime

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

    public var runsHooksElsewhere: Bool { true }

    public func run(
        _ kind: HookKind, _ name: String, input: HookPayload, original: HookPayload?, context: HookContext
    ) async throws -> ParseValue {
        try await pool.invoke(kind, name, input: input.json, original: original?.json, context: context)
    }
}
