/// The hooks of one app, by kind and by class (or function name).
///
/// Registration reads like routing:
/// ```swift
/// hooks.beforeSave("Messages", timeLimit: .seconds(2)) { request in
///     request.object["text"] = request.object["text"]?.stringValue.map { .string($0.trimmed) }
/// }
/// hooks.afterSave("Messages") { request in request.logger.info("saved") }
/// hooks.function("hello") { request in "Hello!" }
/// ```
/// Registering a second hook of the same kind for the same class replaces the first.
public struct HookRegistry: Sendable {
    /// A `beforeSave` handler: may change `request.object`, or throw to reject the save.
    public typealias BeforeSaveHandler = @Sendable (inout BeforeSaveRequest) async throws -> Void
    /// An `afterSave` handler: runs once the save is committed; its error never fails the save.
    public typealias AfterSaveHandler = @Sendable (AfterSaveRequest) async throws -> Void
    /// A `beforeDelete` or `afterDelete` handler.
    public typealias DeleteHandler = @Sendable (DeleteRequest) async throws -> Void
    /// A function handler: its result is the `result` of `POST /functions/:name`.
    public typealias FunctionHandler = @Sendable (FunctionRequest) async throws -> ParseValue
    /// A background job: runs for `POST /jobs/:name` or on its schedule; throwing fails the run.
    public typealias JobHandler = @Sendable (JobRequest) async throws -> Void

    /// One registered hook, its time limit and the rate limit it declares.
    public struct Registration<Handler: Sendable>: Sendable {
        /// The class, or the function's name.
        public let name: String
        /// How long one invocation may take.
        public let timeLimit: Duration
        /// How often it may be called, if it declares a limit.
        public var rateLimit: HookRateLimit? = nil
        /// The hook's code.
        public let handler: Handler
    }

    /// One registered hook as listings and the host see it.
    public struct Summary: Sendable, Hashable {
        public var kind: HookKind
        public var name: String
        public var timeLimit: Duration
        public var rateLimit: HookRateLimit?

        public init(kind: HookKind, name: String, timeLimit: Duration, rateLimit: HookRateLimit? = nil) {
            self.kind = kind
            self.name = name
            self.timeLimit = timeLimit
            self.rateLimit = rateLimit
        }
    }

    public private(set) var beforeSaves: [String: Registration<BeforeSaveHandler>] = [:]
    public private(set) var afterSaves: [String: Registration<AfterSaveHandler>] = [:]
    public private(set) var beforeDeletes: [String: Registration<DeleteHandler>] = [:]
    public private(set) var afterDeletes: [String: Registration<DeleteHandler>] = [:]
    public private(set) var functions: [String: Registration<FunctionHandler>] = [:]
    public private(set) var jobs: [String: Registration<JobHandler>] = [:]

    /// An empty registry.
    public init() {}

    /// Runs `handler` before each save of an object of `className`.
    public mutating func beforeSave(
        _ className: String, timeLimit: Duration = HookKind.beforeSave.defaultTimeLimit,
        _ handler: @escaping BeforeSaveHandler
    ) {
        beforeSaves[className] = Registration(name: className, timeLimit: timeLimit, handler: handler)
    }

    /// Runs `handler` after each committed save of an object of `className`, at least once.
    public mutating func afterSave(
        _ className: String, timeLimit: Duration = HookKind.afterSave.defaultTimeLimit,
        _ handler: @escaping AfterSaveHandler
    ) {
        afterSaves[className] = Registration(name: className, timeLimit: timeLimit, handler: handler)
    }

    /// Runs `handler` before each delete of an object of `className`; throwing stops the delete.
    public mutating func beforeDelete(
        _ className: String, timeLimit: Duration = HookKind.beforeDelete.defaultTimeLimit,
        _ handler: @escaping DeleteHandler
    ) {
        beforeDeletes[className] = Registration(name: className, timeLimit: timeLimit, handler: handler)
    }

    /// Runs `handler` after each committed delete of an object of `className`, at least once.
    public mutating func afterDelete(
        _ className: String, timeLimit: Duration = HookKind.afterDelete.defaultTimeLimit,
        _ handler: @escaping DeleteHandler
    ) {
        afterDeletes[className] = Registration(name: className, timeLimit: timeLimit, handler: handler)
    }

    /// Serves `POST /functions/<name>` with `handler`, at most as often as `rateLimit` allows.
    public mutating func function(
        _ name: String, timeLimit: Duration = HookKind.function.defaultTimeLimit, rateLimit: HookRateLimit? = nil,
        _ handler: @escaping FunctionHandler
    ) {
        functions[name] = Registration(name: name, timeLimit: timeLimit, rateLimit: rateLimit, handler: handler)
    }

    /// Runs `handler` in the background for `POST /jobs/<name>` (master key only) and on the
    /// schedule the operator sets for `name`. The caller gets the run's `_JobStatus` id at once; the
    /// run ends `succeeded`, or `failed` with the error's message, or is stopped at its time limit.
    ///
    /// ```swift
    /// hooks.job("cleanup", timeLimit: .minutes(15)) { request in
    ///     try await request.progress("removing stale sessions")
    /// }
    /// ```
    public mutating func job(
        _ name: String, timeLimit: Duration = HookKind.job.defaultTimeLimit, _ handler: @escaping JobHandler
    ) {
        jobs[name] = Registration(name: name, timeLimit: timeLimit, handler: handler)
    }

    /// Every registered hook, for listings and the host: kind, class or function name, time limit
    /// and rate limit, sorted by name.
    public var summary: [Summary] {
        func rows<H>(_ kind: HookKind, _ table: [String: Registration<H>]) -> [Summary] {
            table.values.map { Summary(kind: kind, name: $0.name, timeLimit: $0.timeLimit, rateLimit: $0.rateLimit) }
        }
        let all = rows(.beforeSave, beforeSaves) + rows(.afterSave, afterSaves) + rows(.beforeDelete, beforeDeletes)
            + rows(.afterDelete, afterDeletes) + rows(.function, functions) + rows(.job, jobs)
        return all.sorted { ($0.name, $0.kind.rawValue) < ($1.name, $1.kind.rawValue) }
    }
}
