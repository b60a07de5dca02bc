import Cloudlet
import Foundation
import Logging
import Synchronization

extension AppRuntime {
    /// Runs the after hook an outbox event owes and marks the event done. The hook's failure or
    /// timeout is logged and counted, and never fails the write it follows.
    func runAfterHook(_ event: OutboxEvent) async {
        let className = event.object.className
        do {
            try await invoke(event.kind, className, caller: event.caller, eventId: event.id) { [executor] context in
                switch event.kind {
                case .afterSave:
                    try await executor.afterSave(
                        AfterSaveRequest(object: event.object, original: event.original, context: context))
                default:
                    try await executor.delete(event.kind, DeleteRequest(object: event.object, context: context))
                }
            }
        } catch {
            logger.warning(
                "after hook did not complete",
                metadata: ["hook": "\(event.kind.rawValue) \(className)", "event_id": "\(event.id)", "error": "\(error)"])
        }
        do {
            try await storage.completeOutboxEvent(event.id)
        } catch {
            logger.error("could not mark outbox event done", metadata: ["event_id": "\(event.id)", "error": "\(error)"])
        }
    }

    /// Runs the after hooks that were committed but never completed, such as those cut off by a crash.
    /// Returns how many ran.
    @discardableResult
    public func replayPendingAfterHooks() async throws -> Int {
        var replayed = 0
        for event in try await storage.pendingOutboxEvents() {
            let claimed = eventsInFlight.withLock { $0.insert(event.id).inserted }
            guard claimed else { continue }
            defer { _ = eventsInFlight.withLock { $0.remove(event.id) } }
            logger.info("replaying after hook", metadata: ["event_id": "\(event.id)", "hook": "\(event.kind.rawValue) \(event.object.className)"])
            await runAfterHook(event)
            replayed += 1
        }
        return replayed
    }

    /// Runs `body` with the event `id` marked as in flight, so that a replay leaves it alone.
    func withEventInFlight<Value>(_ id: String?, _ body: () async throws -> Value) async throws -> Value {
        guard let id else { return try await body() }
        eventsInFlight.withLock { _ = $0.insert(id) }
        defer { _ = eventsInFlight.withLock { $0.remove(id) } }
        return try await body()
    }
}
