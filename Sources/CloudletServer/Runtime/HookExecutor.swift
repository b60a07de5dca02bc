import Cloudlet

/// Runs an app's hook code. The runtime decides when a hook runs and holds it to its deadline; an
/// executor decides where the code runs: in this process, or (with isolation) in a worker process.
public protocol HookExecutor: Sendable {
    /// Every hook the executor runs, with its time and rate limits (for the manifest and the
    /// per-app cap).
    var hooks: [HookRegistry.Summary] { get }

    /// The hook of `kind` for `name` (class or function) — its time limit and declared rate
    /// limit — or nil if there is none.
    func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary?

    /// Runs the `beforeSave` hook of the object's class and returns the object as the hook left it.
    func beforeSave(_ request: BeforeSaveRequest) async throws -> ParseObject

    /// Runs the `afterSave` hook of the object's class.
    func afterSave(_ request: AfterSaveRequest) async throws

    /// Runs the `beforeDelete` (`kind` `.beforeDelete`) or `afterDelete` hook of the object's class.
    func delete(_ kind: HookKind, _ request: DeleteRequest) async throws

    /// Runs the function hook `name` and returns its result.
    func function(_ name: String, _ request: FunctionRequest) async throws -> ParseValue

    /// Runs the job `name`.
    func job(_ name: String, _ request: JobRequest) async throws

    /// Whether hooks can run now (for `/ready`): every worker is up. Default true.
    var isReady: Bool { get }

    /// How many hook calls wait for room to run now (for `/metrics`). Default 0.
    var queuedInvocations: Int { get }
}

extension HookExecutor {
    public var isReady: Bool { true }
    public var queuedInvocations: Int { 0 }
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
        func summary<H>(_ registration: HookRegistry.Registration<H>?) -> HookRegistry.Summary? {
            registration.map { .init(kind: kind, name: name, timeLimit: $0.timeLimit, rateLimit: $0.rateLimit) }
        }
        switch kind {
        case .beforeSave: return summary(registry.beforeSaves[name])
        case .afterSave: return summary(registry.afterSaves[name])
        case .beforeDelete: return summary(registry.beforeDeletes[name])
        case .afterDelete: return summary(registry.afterDeletes[name])
        case .function: return summary(registry.functions[name])
        case .job: return summary(registry.jobs[name])
        }
    }

    public func beforeSave(_ request: BeforeSaveRequest) async throws -> ParseObject {
        guard let hook = registry.beforeSaves[request.object.className] else { return request.object }
        var request = request
        try await hook.handler(&request)
        return request.object
    }

    public func afterSave(_ request: AfterSaveRequest) async throws {
        try await registry.afterSaves[request.object.className]?.handler(request)
    }

    public func delete(_ kind: HookKind, _ request: DeleteRequest) async throws {
        let table = kind == .beforeDelete ? registry.beforeDeletes : registry.afterDeletes
        try await table[request.object.className]?.handler(request)
    }

    public func function(_ name: String, _ request: FunctionRequest) async throws -> ParseValue {
        guard let hook = registry.functions[name] else { throw ParseError.failed("Invalid function: \"\(name)\"") }
        return try await hook.handler(request)
    }

    public func job(_ name: String, _ request: JobRequest) async throws {
        guard let hook = registry.jobs[name] else { throw ParseError.failed("Invalid job.") }
        try await hook.handler(request)
    }
}

extension HookExecutor {
    /// The time limit of the hook of `kind` for `name`, or nil if there is none.
    public func timeLimit(of kind: HookKind, for name: String) -> Duration? {
        hook(kind, name)?.timeLimit
    }

    /// The rate limit the function `name` declares, as rules for the app's limiter.
    func rateLimitRules(ofFunction name: String) -> [RateLimitRule] {
        guard let limit = hook(.function, name)?.rateLimit else { return [] }
        return [
            RateLimitRule(
                requestPath: PathPattern("/functions/" + name) ?? PathPattern("/functions/*")!,
                quota: RateLimitQuota(count: limit.count, window: limit.window),
                zone: limit.scope)
        ]
    }
}
