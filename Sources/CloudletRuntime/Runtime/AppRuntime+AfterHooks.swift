import Cloudlet
import Foundation
import Logging
import NIOCore
import Synchronization

extension AppRuntime {
    /// Runs the after hook an outbox event owes and marks the event done. The hook's failure or
    /// timeout is logged and counted, and never fails the write it follows. If the hook did not run
    /// to an end of its own (its worker ended under it, or the pool could not take it), the event
    /// stays owed and is tried again with backoff (``retryDueAfterHooks()``).
    func runAfterHook(_ event: OutboxEvent) async {
        let className = event.object.className
        do {
            _ = try await runHook(
                event.kind, className, input: event.hookInput, original: event.hookOriginal, caller: event.caller, eventId: event.id)
        } catch let error as ParseError where error.leftHookUnfinished {
            let due = afterHookRetries.withLock { $0.failed(event, at: clock.now) }
            afterHookRetryQueued?.signal()
            logger.warning(
                "after hook did not run to its end; it stays owed",
                metadata: ["hook": "\(event.kind.rawValue) \(className)", "event_id": "\(event.id)", "error": "\(error)", "retry_at": "\(due)"])
            return
        } catch {
            logger.warning(
                "after hook did not complete",
                metadata: ["hook": "\(event.kind.rawValue) \(className)", "event_id": "\(event.id)", "error": "\(error)"])
        }
        afterHookRetries.withLock { $0.succeeded(event.id) }
        storage.completeOutboxEvent(event.id)
    }

    /// Runs the after hooks that were committed but never completed, such as those cut off by a crash.
    /// Returns how many ran.
    @discardableResult
    public func replayPendingAfterHooks() async throws -> Int {
        var replayed = 0
        for event in try await storage.pendingOutboxEvents() {
            guard try await claimForReplay(event.id) else { continue }
            defer { _ = eventsInFlight.withLock { $0.remove(event.id) } }
            logger.info("replaying after hook", metadata: ["event_id": "\(event.id)", "hook": "\(event.kind.rawValue) \(event.object.className)"])
            await runAfterHook(event)
            replayed += 1
        }
        return replayed
    }

    /// When the earliest after hook owed a retry is due, if one is.
    public var nextAfterHookRetry: Date? { afterHookRetries.withLock { $0.nextDue } }

    /// Runs the after hooks whose retry is due. Returns how many ran.
    @discardableResult
    public func retryDueAfterHooks() async -> Int {
        let due = afterHookRetries.withLock { $0.takeDue(at: clock.now) }
        for event in due {
            await withEventInFlight(event.id) { await runAfterHook(event) }
        }
        return due.count
    }

    /// Marks event `id` in flight if it is neither running nor already completed (by a live write
    /// that finished after the pending events were read).
    private func claimForReplay(_ id: String) async throws -> Bool {
        guard eventsInFlight.withLock({ $0.insert(id).inserted }) else { return false }
        guard try await storage.isOutboxEventPending(id) else {
            _ = eventsInFlight.withLock { $0.remove(id) }
            return false
        }
        return true
    }

    /// Runs `write`, which commits the outbox event `eventId` names (if any) and returns it, then the
    /// event's after hook `hook`: before returning, or — for a hook that runs after the response — in
    /// a task of its own. The event stays in flight (a replay leaves it alone) until its hook has run.
    func writeThenAfterHook<Value: Sendable>(
        _ eventId: String?, _ hook: HookRegistry.Summary?, _ write: () async throws -> (Value, OutboxEvent?)
    ) async throws -> Value {
        guard let eventId else { return try await write().0 }
        eventsInFlight.withLock { _ = $0.insert(eventId) }
        let ended = { @Sendable in _ = self.eventsInFlight.withLock { $0.remove(eventId) } }
        let value: Value
        let event: OutboxEvent?
        do {
            (value, event) = try await write()
        } catch {
            ended()
            throw error
        }
        guard let event else {
            ended()
            return value
        }
        if hook?.runs == .afterResponse {
            Task {
                await runAfterHook(event)
                ended()
            }
        } else {
            await runAfterHook(event)
            ended()
        }
        return value
    }

    /// Runs `body` with the event `id` marked as in flight, so that a replay leaves it alone.
    func withEventInFlight<Value>(_ id: String?, _ body: () async throws -> Value) async rethrows -> Value {
        guard let id else { return try await body() }
        eventsInFlight.withLock { _ = $0.insert(id) }
        defer { _ = eventsInFlight.withLock { $0.remove(id) } }
        return try await body()
    }
}

extension OutboxEvent {
    /// The after hook's input: the object, with the JSON the outbox row holds (encoded once).
    var hookInput: HookPayload {
        HookPayload(object, json: ByteBuffer(string: objectText.rest))
    }

    /// The after hook's original, likewise.
    var hookOriginal: HookPayload? {
        guard let original, let originalJSON else { return nil }
        return HookPayload(original, json: ByteBuffer(string: originalJSON))
    }
}
