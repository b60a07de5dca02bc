import Cloudlet
import Foundation

/// Runs an app's hooks: each under its deadline (the sooner of its own time limit and its caller's),
/// in a slot of the app's ``HookBulkhead`` for a client's request, counted in the hook's statistics
/// and metrics and kept in the app's hook log. Every part of the runtime runs its hooks through it.
struct HookRunner {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The hook of `kind` for `name`, if the app has one. A caller that goes on to run it passes it
    /// to ``run(_:input:original:caller:eventId:)``, so that one call looks it up once.
    func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary? {
        app.executor.hook(kind, name)
    }

    /// Runs the hook of `kind` for `name` as ``run(_:input:original:caller:eventId:)`` does;
    /// throws 141 if there is none.
    func run(
        _ kind: HookKind, _ name: String, input: HookPayload, original: HookPayload? = nil, caller: Caller, eventId: String? = nil
    ) async throws -> ParseValue {
        guard let hook = hook(kind, name) else { throw ParseError.failed("no \(kind.rawValue) hook for \(name)") }
        return try await run(hook, input: input, original: original, caller: caller, eventId: eventId)
    }

    /// Runs `hook` on `input` (and `original`) under its deadline: the sooner
    /// of its own time limit and its caller's deadline. Returns the hook's answer, as the kind's
    /// entry in the table says (``HookKindDefinition/returns``). Errors that are not a ``ParseError``
    /// reach the caller as code 141, their details only in the log.
    func run(
        _ hook: HookRegistry.Summary, input: HookPayload, original: HookPayload? = nil, caller: Caller, eventId: String? = nil
    ) async throws -> ParseValue {
        let (kind, name, timeLimit) = (hook.kind, hook.name, hook.timeLimit)
        guard caller.depth < app.limits.maximumHookDepth else {
            throw ParseError.failed("hooks nested more than \(app.limits.maximumHookDepth) deep")
        }
        var deadline = app.clock.now.addingTimeInterval(timeLimit.seconds)
        if let outer = caller.deadline { deadline = min(deadline, outer) }
        let run = HookRunObservation(kind, name, requestId: caller.requestId, startedAt: app.clock.now)
        let logger = run.capture.capturing(
            app.hookLogger, metadata: ["hook": .string("\(kind.rawValue) \(name)"), "request_id": .string(caller.requestId)])
        var inner = caller
        inner.deadline = deadline
        inner.depth += 1
        let context = HookContext(
            appId: app.id, requestId: caller.requestId, user: caller.userId.map { HookUser(id: $0, roles: caller.roles) },
            isMaster: caller.isMaster, installationId: caller.installationId, deadline: deadline, eventId: eventId,
            logger: logger, store: RuntimeHookStore(app: app, caller: inner), clock: app.clock)
        app.statistics.record(kind, name) { $0.invocations += 1 }
        do {
            let dispatch = { @Sendable [bulkhead = app.bulkhead, executor = app.executor] () async throws -> ParseValue in
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
            if app.executor.runsHooksElsewhere {
                let callDeadline = CallDeadline(until: deadline, clock: app.clock)
                defer { callDeadline.end() }
                value = try await CallDeadline.$current.withValue(callDeadline, operation: dispatch)
            } else {
                value = try await DeadlineRace.run(until: deadline, clock: app.clock, dispatch)
            }
            // Whatever ran the hook (a worker included), the host takes only what the kind returns.
            guard kind.definition.returns.accepts(value) else {
                throw ParseError.failed("\(kind.rawValue) hook on \(name) must answer \(kind.definition.returns)")
            }
            finish(run, .ok)
            return value
        } catch is DeadlineRace.DeadlineExceeded {
            app.statistics.record(kind, name) { $0.timeouts += 1 }
            logger.warning("hook timed out")
            let error = ParseError(code: 124, message: "\(kind.rawValue) hook on \(name) timed out after \(timeLimit)", httpStatus: 504)
            finish(run, .timeout, error: error.message)
            throw error
        } catch let failure as HookDispatchError {
            app.statistics.record(kind, name) { $0.failures += 1 }
            finish(run, failure.outcome, error: failure.error.message)
            throw failure.error
        } catch let error as ParseError {
            app.statistics.record(kind, name) { $0.failures += 1 }
            logger.info("hook refused", metadata: ["code": "\(error.code)", "error": "\(error.message)"])
            finish(run, .error, error: error.message)
            throw error
        } catch {
            app.statistics.record(kind, name) { $0.failures += 1 }
            logger.error("hook failed", metadata: ["error": "\(String(reflecting: error))"])
            finish(run, .error, error: String(describing: error))
            throw ParseError.failed("\(kind.rawValue) hook on \(name) failed")
        }
    }

    /// Counts the ended `run` in the metrics and keeps it in the app's hook log.
    private func finish(_ run: HookRunObservation, _ outcome: HookOutcome, error: String? = nil) {
        let duration = ContinuousClock.now - run.started
        app.metrics?.hookRan(app: app.id, hook: run.hook, outcome: outcome, duration: duration)
        guard let hookRuns = app.hookRuns else { return }
        let (lines, dropped) = run.capture.end()
        hookRuns.record(
            HookRun(
                hook: run.hook, requestId: run.requestId, startedAt: run.startedAt, duration: duration, outcome: outcome, error: error,
                lines: lines, droppedLines: dropped))
    }
}
