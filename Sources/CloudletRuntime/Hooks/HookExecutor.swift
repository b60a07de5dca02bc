import Cloudlet

/// Runs an app's hook code. The runtime decides when a hook runs and holds it to its deadline; an
/// executor decides where the code runs: in this process, or (with isolation) in a worker process.
/// Every kind goes through the one ``run(_:_:input:original:context:)``: the kind's entry in the
/// table (``HookKind/definition``) says what it takes and answers.
public protocol HookExecutor: Sendable {
    /// Every hook the executor runs, with its time and rate limits (for the manifest and the
    /// per-app cap).
    var hooks: [HookRegistry.Summary] { get }

    /// The hook of `kind` for `name` (class or function) — its time limit and declared rate
    /// limit — or nil if there is none.
    func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary?

    /// Runs the hook of `kind` for `name` on `input` (and `original`) and returns its answer: what
    /// the kind returns (``HookKindDefinition/returns``), `null` for a kind that returns nothing.
    func run(_ kind: HookKind, _ name: String, input: HookPayload, original: HookPayload?, context: HookContext) async throws -> ParseValue

    /// Whether hooks can run now (for `/ready`): every worker is up. Default true.
    var isReady: Bool { get }

    /// How many hook calls wait for room to run now (for `/metrics`). Default 0.
    var queuedInvocations: Int { get }

    /// Whether a call only hands the hook to code elsewhere (a worker process) and waits for its
    /// answer. The runtime then runs the call in its caller's task, where each of the call's waits
    /// (for a bulkhead slot, for room on a worker, for the answer) ends at the deadline, instead of
    /// in a task of its own that the deadline races. An executor that runs hook code on the
    /// calling thread must answer false (the default): a hook that never yields would hold its
    /// caller past the deadline.
    var runsHooksElsewhere: Bool { get }
}

extension HookExecutor {
    public var isReady: Bool { true }
    public var queuedInvocations: Int { 0 }
    public var runsHooksElsewhere: Bool { false }
}

/// Runs hooks as closures in this process: fast, but a hook that traps takes the process with it.
public struct InProcessHookExecutor: HookExecutor {
    private let registry: HookRegistry

    /// An executor for the hooks in `registry`.
    public init(registry: HookRegistry) {
        self.registry = registry
    }

    public var hooks: [HookRegistry.Summary] { registry.summary }

    public func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary? {
        registry.registration(kind, name)?.summary
    }

    public func run(
        _ kind: HookKind, _ name: String, input: HookPayload, original: HookPayload?, context: HookContext
    ) async throws -> ParseValue {
        try await registry.run(kind, name, HookRegistry.Call(input: input.value, original: original?.value, context: context))
    }
}

extension HookExecutor {
    /// The time limit of the hook of `kind` for `name`, or nil if there is none.
    public func timeLimit(of kind: HookKind, for name: String) -> Duration? {
        hook(kind, name)?.timeLimit
    }
}
