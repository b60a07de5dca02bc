import Cloudlet
import Foundation
import Logging
import NIOCore

/// An app's after hooks (`afterSave`, `afterDelete`), queued as rows of the work queue with the
/// write they follow and run right after it: before the write returns, or — for a hook that runs
/// after the response — in the app's work service. A row whose process ended before its hook ran
/// to its end is run again from the queue.
struct AfterHooks {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The wait before an after hook that did not run to its end is tried again: 1 s, doubling with
    /// each attempt, up to 5 minutes.
    static let backoff = Backoff(first: .seconds(1), maximum: .seconds(300))

    /// Runs `write`, which queues (with `hold`) the after hook `hook` owes in its own transaction and
    /// returns that event (if any), then the after hook: before returning, or — for a hook that
    /// runs after the response — in the app's work service while this returns. Either way its row
    /// is held by this process, so no claim takes it meanwhile, and ended as its run says.
    func writeThenRun<Value: Sendable>(
        _ hook: HookRegistry.Summary?, _ write: (WorkHold?) async throws -> (Value, OutboxEvent?)
    ) async throws -> Value {
        guard let hook else { return try await write(nil).0 }
        // A write that joins a transactional batch's transaction commits as late as its deadline.
        let latestCommit = SharedTransactionMember.current?.transaction.deadline.deadline ?? .distantPast
        let start = max(app.clock.now, latestCommit)
        let runsAfterResponse = hook.runs == .afterResponse
        let hold =
            runsAfterResponse
            ? app.heldWork.hold(runningFor: hook.timeLimit, at: start) : app.heldWork.heldByItsWriter(runningFor: hook.timeLimit, at: start)
        let (value, event) = try await write(hold)
        guard let event else { return value }
        await SharedTransactionMember.current?.waitForTurn()
        let work = ClaimedWork(id: event.id, kind: .afterHook, payload: .null, attempts: 1, owner: hold.owner, leasedUntil: hold.leasedUntil)
        await QueuedWork(app).runHeld(work, waits: !runsAfterResponse) { await self.run(event, attempt: 1) }
        return value
    }

    /// What builds the after hook event of `kind` for the object a write stores (with its
    /// `original`), its row held by `hold`; nil without a hold (no after hook).
    static func event(
        _ kind: HookKind, original: ParseObject?, caller: Caller, hold: WorkHold?
    ) -> (@Sendable (ParseObject) -> OutboxEvent)? {
        guard let hold else { return nil }
        let id = RandomUUID.string()
        return { object in OutboxEvent(id: id, kind: kind, object: object, original: original, caller: caller, hold: hold) }
    }

    /// Runs the after hook of the queued row `work`: one owed by a process that ended before it
    /// ran to its end, or due again after such an end.
    func runQueued(_ work: ClaimedWork) async -> WorkOutcome {
        guard let event = OutboxEventCoding.decode(work.payload) else {
            app.logger.error("dropped an after hook whose queued row cannot be read", metadata: ["event_id": "\(work.id)"])
            return .done
        }
        app.logger.info(
            "replaying after hook",
            metadata: ["event_id": "\(event.id)", "hook": "\(event.kind.rawValue) \(event.object.className)", "attempt": "\(work.attempts)"])
        return await run(event, attempt: work.attempts)
    }

    /// Runs the after hook `event` owes, for the `attempt`th time, and answers what becomes of its
    /// row. The hook's failure or timeout is logged and counted, and never fails the write it
    /// follows: the row is done. If the hook did not run to an end of its own (its worker ended
    /// under it, or the pool could not take it), it is due again after ``backoff``; if it
    /// was cancelled (its service stops), its row is handed back.
    func run(_ event: OutboxEvent, attempt: Int) async -> WorkOutcome {
        let className = event.object.className
        do {
            _ = try await HookRunner(app).run(
                event.kind, className, input: event.hookInput, original: event.hookOriginal, caller: event.caller, eventId: event.id)
        } catch where Task.isCancelled {
            return .released
        } catch let error as ParseError where error.leftHookUnfinished {
            let due = Self.backoff.due(afterAttempt: attempt, failedAt: app.clock.now)
            app.logger.warning(
                "after hook did not run to its end; it stays owed",
                metadata: ["hook": "\(event.kind.rawValue) \(className)", "event_id": "\(event.id)", "error": "\(error)", "retry_at": "\(due)"])
            return .retry(at: due)
        } catch {
            app.logger.warning(
                "after hook did not complete",
                metadata: ["hook": "\(event.kind.rawValue) \(className)", "event_id": "\(event.id)", "error": "\(error)"])
        }
        return .done
    }
}

extension OutboxEvent {
    /// The after hook's input: the object, with the JSON its queued row holds (encoded once).
    var hookInput: HookPayload {
        HookPayload(object, json: ByteBuffer(string: objectText.rest))
    }

    /// The after hook's original, likewise.
    var hookOriginal: HookPayload? {
        guard let original, let originalJSON else { return nil }
        return HookPayload(original, json: ByteBuffer(string: originalJSON))
    }
}
