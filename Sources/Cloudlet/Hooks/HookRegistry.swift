/// The hooks of one app, by kind and by what they bind to (a class, a name, or nothing).
///
/// Registration reads like routing:
/// ```swift
/// hooks.beforeSave("Messages", timeLimit: .seconds(2)) { request in
///     request.object["text"] = request.object["text"]?.stringValue.map { .string($0.trimmed) }
/// }
/// hooks.afterSave("Messages") { request in request.logger.info("saved") }
/// hooks.function("hello") { request in "Hello!" }
/// ```
/// Every kind is stored alike: a ``Registration`` whose handler takes a ``Call`` (JSON in) and answers
/// JSON. The typed methods (`beforeSave`, `function`, …) adapt a kind's request type to it, and
/// ``run(_:_:_:)`` is the one dispatch, used by the in-process executor and by worker processes alike.
/// Registering a second hook of the same kind for the same class or name replaces the first.
public struct HookRegistry: Sendable {
    /// One call of a hook as the dispatch hands it over: the input (an object, a query, parameters,
    /// as the kind's ``HookKindDefinition/receives`` says), the original, and the call's context.
    public struct Call: Sendable {
        /// The object, query or parameters.
        public var input: ParseValue
        /// For an update, the stored object before it; for `afterFind`, the query.
        public var original: ParseValue?
        /// The call's context.
        public let context: HookContext

        /// A call with `input`, `original` and `context`.
        public init(input: ParseValue, original: ParseValue? = nil, context: HookContext) {
            self.input = input
            self.original = original
            self.context = context
        }
    }

    /// A hook's code as the registry keeps it: a call in, the kind's answer (``HookKindDefinition/returns``) out.
    public typealias Handler = @Sendable (Call) async throws -> ParseValue

    /// One registered hook: its kind, what it binds to, its limits and its code.
    public struct Registration: Sendable {
        /// The hook's kind.
        public let kind: HookKind
        /// The class or the name the hook is registered for ("" for a kind bound to nothing).
        public let name: String
        /// How long one invocation may take.
        public let timeLimit: Duration
        /// How often it may be called, if it declares a limit.
        public let rateLimit: HookRateLimit?
        /// For an after hook: whether the response waits for it.
        public let runs: AfterHookTiming
        /// The hook's code.
        public let handler: Handler

        /// The hook as listings and the host see it.
        public var summary: Summary {
            Summary(kind: kind, name: name, timeLimit: timeLimit, rateLimit: rateLimit, runs: runs)
        }
    }

    /// One registered hook as listings and the host see it.
    public struct Summary: Sendable, Hashable {
        public var kind: HookKind
        public var name: String
        public var timeLimit: Duration
        public var rateLimit: HookRateLimit?
        public var runs: AfterHookTiming

        public init(
            kind: HookKind, name: String, timeLimit: Duration, rateLimit: HookRateLimit? = nil, runs: AfterHookTiming = .beforeResponse
        ) {
            self.kind = kind
            self.name = name
            self.timeLimit = timeLimit
            self.rateLimit = rateLimit
            self.runs = runs
        }
    }

    private struct Key: Hashable {
        let kind: HookKind
        let name: String
    }

    private var registrations: [Key: Registration] = [:]

    /// An empty registry.
    public init() {}

    /// Registers `handler` as the hook of `kind` for `name` (a class or a name, as the kind binds;
    /// "" for a kind bound to nothing), with the kind's default time limit unless `timeLimit` is
    /// given; an after hook `runs` before the response (the default) or after it.
    public mutating func register(
        _ kind: HookKind, _ name: String, timeLimit: Duration? = nil, rateLimit: HookRateLimit? = nil,
        runs: AfterHookTiming = .beforeResponse, _ handler: @escaping Handler
    ) {
        let name = kind.definition.binding == .nothing ? "" : name
        registrations[Key(kind: kind, name: name)] = Registration(
            kind: kind, name: name, timeLimit: timeLimit ?? kind.defaultTimeLimit, rateLimit: rateLimit, runs: runs, handler: handler)
    }

    /// The hook of `kind` for `name`, if one is registered.
    public func registration(_ kind: HookKind, _ name: String) -> Registration? {
        registrations[Key(kind: kind, name: kind.definition.binding == .nothing ? "" : name)]
    }

    /// Runs the hook of `kind` for `name` on `call` and returns its answer: what the kind returns
    /// (``HookKindDefinition/returns``), `null` for a kind that returns nothing. Throws 141 if there is no such hook.
    public func run(_ kind: HookKind, _ name: String, _ call: Call) async throws -> ParseValue {
        guard let hook = registration(kind, name) else { throw ParseError.failed("no \(kind.rawValue) hook for \(name)") }
        let answer = try await hook.handler(call)
        return kind.definition.returns == .nothing ? .null : answer
    }

    /// Every registered hook, for listings and the host: kind, class or function name, time limit
    /// and rate limit, sorted by name.
    public var summary: [Summary] {
        registrations.values.map(\.summary).sorted { ($0.name, $0.kind.rawValue) < ($1.name, $1.kind.rawValue) }
    }
}

/// When an after hook runs, against the response to the write it follows.
public enum AfterHookTiming: UInt8, Sendable, Hashable, Codable {
    /// Before the response is sent, as Parse runs it (the default): the client waits for the hook.
    case beforeResponse = 0
    /// After the response is sent: the client does not wait. The hook still runs at least once:
    /// it is queued in the write's transaction.
    case afterResponse = 1
}
