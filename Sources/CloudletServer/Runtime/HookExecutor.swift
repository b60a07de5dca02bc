import Cloudlet

/// Runs an app's hook code. The runtime decides when a hook runs and holds it to its deadline; an
/// executor decides where the code runs: in this process, or (with isolation) in a worker process.
public protocol HookExecutor: Sendable {
    /// The time limit of the hook of `kind` for `name` (class or function), or nil if there is none.
    func timeLimit(of kind: HookKind, for name: String) -> Duration?

    /// Runs the `beforeSave` hook of the object's class and returns the object as the hook left it.
    func beforeSave(_ request: BeforeSaveRequest) async throws -> ParseObject

    /// Runs the `afterSave` hook of the object's class.
    func afterSave(_ request: AfterSaveRequest) async throws

    /// Runs the `beforeDelete` (`kind` `.beforeDelete`) or `afterDelete` hook of the object's class.
    func delete(_ kind: HookKind, _ request: DeleteRequest) async throws

    /// Runs the function hook `name` and returns its result.
    func function(_ name: String, _ request: FunctionRequest) async throws -> ParseValue

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

    public func timeLimit(of kind: HookKind, for name: String) -> Duration? {
        switch kind {
        case .beforeSave: registry.beforeSaves[name]?.timeLimit
        case .afterSave: registry.afterSaves[name]?.timeLimit
        case .beforeDelete: registry.beforeDeletes[name]?.timeLimit
        case .afterDelete: registry.afterDeletes[name]?.timeLimit
        case .function: registry.functions[name]?.timeLimit
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
}
