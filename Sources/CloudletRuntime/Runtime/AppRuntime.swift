import Cloudlet
import Foundation
import Logging

/// One app's request path: validation, access control, hooks under their time limits, storage and
/// the after hooks queued with the writes. The HTTP routes, the hooks' store and the test harness all go through it.
public final class AppRuntime: Sendable {
    /// Limits that bound what one request may set off.
    public struct Limits: Sendable {
        /// How deep hooks may call the store that fires further hooks.
        public var maximumHookDepth: Int
        /// How long a login session lasts (Parse's default: one year).
        public var sessionLifetime: Duration
        /// How passwords are hashed.
        public var passwordHasher: any PasswordHashing
        /// The most hook invocations of client requests that run at once (see ``HookBulkhead``).
        public var maximumConcurrentHooks: Int
        /// The most that wait for a slot; past them, 503.
        public var maximumQueuedHooks: Int
        /// The most bytes one request (or one store call of a hook) may read and answer; see ``ReadBudget``.
        public var maximumResponseBytes: Int
        /// The most background jobs of the app that run at once; past them, starting one answers 503/155.
        public var maximumRunningJobs: Int
        /// The free space uploads leave on the disk of the app's files; nil for none.
        public var freeDiskFloor: FreeDiskFloor?

        /// Limits with Cloudlet's defaults.
        public init(
            maximumHookDepth: Int = 8, sessionLifetime: Duration = .seconds(365 * 86_400), passwordHasher: any PasswordHashing = PasswordHasher(),
            maximumConcurrentHooks: Int = 32, maximumQueuedHooks: Int = 256, maximumResponseBytes: Int = ReadBudget.defaultMaximumBytes,
            maximumRunningJobs: Int = 4, freeDiskFloor: FreeDiskFloor? = nil
        ) {
            self.freeDiskFloor = freeDiskFloor
            self.maximumHookDepth = maximumHookDepth
            self.sessionLifetime = sessionLifetime
            self.passwordHasher = passwordHasher
            self.maximumConcurrentHooks = maximumConcurrentHooks
            self.maximumQueuedHooks = maximumQueuedHooks
            self.maximumResponseBytes = maximumResponseBytes
            self.maximumRunningJobs = maximumRunningJobs
        }
    }

    /// The app's id.
    public let appId: String
    /// The app's stores: objects, accounts, work queue, jobs, push, file usage and hook log.
    public let stores: AppStores
    /// Where the app's uploaded files are, if it stores files.
    public let files: (any FileStorage)?
    /// Where the app's hook code runs.
    public let executor: any HookExecutor
    /// The clock for timestamps and deadlines.
    public let clock: any CloudletClock
    /// How often each hook ran, failed and timed out.
    public let statistics = HookStatistics()
    package let limits: Limits
    /// The fields only their owner and the master key may see.
    public let protectedFields: ProtectedFields
    /// Failed logins per account and client address.
    public let loginThrottle: LoginThrottle
    package let logger: Logger
    package let hookLogger: Logger
    /// Caps the app's hook invocations running and waiting at once.
    public let bulkhead: HookBulkhead
    /// The app's hook log: each run with its outcome and lines.
    package let hookRuns: HookRunLog?
    /// Where each hook run is counted by outcome and timed.
    package let metrics: CloudletMetrics?
    /// Where the rows this runtime queues held (after hooks) go to be run by the app's work service.
    let heldWork: WorkHandoff

    /// A runtime for `appId`, hiding `protectedFields` from readers other than their owner.
    /// `logger` receives the runtime's own messages; `hookLogger` is the app's hook log, which hooks
    /// write to through `request.logger`. Each hook run is kept in `hookRuns` and counted in
    /// `metrics`, when given. Uploaded files go to `files`; without it the app takes no uploads.
    public init(
        appId: String, stores: AppStores, files: (any FileStorage)? = nil, executor: any HookExecutor, clock: any CloudletClock,
        limits: Limits = Limits(), protectedFields: ProtectedFields = .standard, logger: Logger, hookLogger: Logger,
        hookRuns: HookRunLog? = nil, metrics: CloudletMetrics? = nil
    ) {
        heldWork = WorkHandoff(wake: stores.work.workQueued)
        self.files = files
        self.hookRuns = hookRuns
        self.metrics = metrics
        self.appId = appId
        self.protectedFields = protectedFields
        self.stores = stores
        self.executor = executor
        self.clock = clock
        self.limits = limits
        self.loginThrottle = LoginThrottle(clock: clock)
        self.bulkhead = HookBulkhead(maximumRunning: limits.maximumConcurrentHooks, maximumWaiting: limits.maximumQueuedHooks)
        var logger = logger
        logger[metadataKey: "app"] = .string(appId)
        self.logger = logger
        var hookLogger = hookLogger
        hookLogger[metadataKey: "app"] = .string(appId)
        self.hookLogger = hookLogger
    }

    /// The hook of `kind` for `name`, if the app has one. A caller that goes on to run it passes it
    /// to ``runHook(_:input:original:caller:eventId:)``, so that one call looks it up once.
    package func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary? {
        executor.hook(kind, name)
    }

    /// Whether a hook of `kind` is registered for `name`.
    func hasHook(_ kind: HookKind, _ name: String) -> Bool {
        hook(kind, name) != nil
    }

    /// Runs the hook of `kind` for `name` as ``runHook(_:input:original:caller:eventId:)`` does;
    /// throws 141 if there is none.
    func runHook(
        _ kind: HookKind, _ name: String, input: HookPayload, original: HookPayload? = nil, caller: Caller, eventId: String? = nil
    ) async throws -> ParseValue {
        guard let hook = hook(kind, name) else { throw ParseError.failed("no \(kind.rawValue) hook for \(name)") }
        return try await runHook(hook, input: input, original: original, caller: caller, eventId: eventId)
    }

    /// Runs `hook` on `input` (and `original`) under its deadline: the sooner
    /// of its own time limit and its caller's deadline. Returns the hook's answer, as the kind's
    /// entry in the table says (``HookKindDefinition/returns``). Errors that are not a ``ParseError``
    /// reach the caller as code 141, their details only in the log.
    func runHook(
        _ hook: HookRegistry.Summary, input: HookPayload, original: HookPayload? = nil, caller: Caller, eventId: String? = nil
    ) async throws -> ParseValue {
        let (kind, name, timeLimit) = (hook.kind, hook.name, hook.timeLimit)
        guard caller.depth < limits.maximumHookDepth else {
            throw ParseError.failed("hooks nested more than \(limits.maximumHookDepth) deep")
        }
        var deadline = clock.now.addingTimeInterval(timeLimit.seconds)
        if let outer = caller.deadline { deadline = min(deadline, outer) }
        let run = HookRunObservation(kind, name, requestId: caller.requestId, startedAt: clock.now)
        var logger = run.capture.capturing(hookLogger)
        logger[metadataKey: "hook"] = .string("\(kind.rawValue) \(name)")
        logger[metadataKey: "request_id"] = .string(caller.requestId)
        var inner = caller
        inner.deadline = deadline
        inner.depth += 1
        let context = HookContext(
            appId: appId, requestId: caller.requestId, user: caller.userId.map(HookUser.init(id:)),
            isMaster: caller.isMaster, installationId: caller.installationId, deadline: deadline, eventId: eventId,
            logger: logger, store: RuntimeHookStore(runtime: self, caller: inner), clock: clock)
        statistics.record(kind, name) { $0.invocations += 1 }
        do {
            let dispatch = { @Sendable [bulkhead, executor] () async throws -> ParseValue in
                let call = { try await executor.run(kind, name, input: input, original: original, context: context) }
                // Nested hooks run in their caller's slot: a hook never waits on itself.
                guard caller.depth == 0 else { return try await call() }
                do {
                    return try await bulkhead.run(call)
                } catch let refusal as ParseError where refusal == HookBulkhead.full {
                    throw HookDispatchError(outcome: .rejected, error: refusal)
                }
            }
            let value: ParseValue
            if executor.runsHooksElsewhere {
                let callDeadline = CallDeadline(until: deadline, clock: clock)
                defer { callDeadline.end() }
                value = try await CallDeadline.$current.withValue(callDeadline, operation: dispatch)
            } else {
                value = try await DeadlineRace.run(until: deadline, clock: clock, dispatch)
            }
            // Whatever ran the hook (a worker included), the host takes only what the kind returns.
            guard kind.definition.returns.accepts(value) else {
                throw ParseError.failed("\(kind.rawValue) hook on \(name) must answer \(kind.definition.returns)")
            }
            finish(run, .ok)
            return value
        } catch is DeadlineRace.DeadlineExceeded {
            statistics.record(kind, name) { $0.timeouts += 1 }
            logger.warning("hook timed out")
            let error = ParseError(code: 124, message: "\(kind.rawValue) hook on \(name) timed out after \(timeLimit)", httpStatus: 504)
            finish(run, .timeout, error: error.message)
            throw error
        } catch let failure as HookDispatchError {
            statistics.record(kind, name) { $0.failures += 1 }
            finish(run, failure.outcome, error: failure.error.message)
            throw failure.error
        } catch let error as ParseError {
            statistics.record(kind, name) { $0.failures += 1 }
            logger.info("hook refused", metadata: ["code": "\(error.code)", "error": "\(error.message)"])
            finish(run, .error, error: error.message)
            throw error
        } catch {
            statistics.record(kind, name) { $0.failures += 1 }
            logger.error("hook failed", metadata: ["error": "\(String(reflecting: error))"])
            finish(run, .error, error: String(describing: error))
            throw ParseError.failed("\(kind.rawValue) hook on \(name) failed")
        }
    }

    /// A new object id: ten random letters and digits, as Parse makes them, from one 64-bit draw
    /// of the system's secure generator (62^10 < 2^60; one system call instead of ten).
    func newObjectId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        var bits = generator.next()
        var id = [UInt8]()
        id.reserveCapacity(10)
        for _ in 0..<10 {
            id.append(alphabet[Int(bits % 62)])
            bits /= 62
        }
        return String(decoding: id, as: UTF8.self)
    }
}

extension Duration {
    /// The duration in seconds.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
