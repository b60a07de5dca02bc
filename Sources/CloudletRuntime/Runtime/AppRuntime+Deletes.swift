import Cloudlet
import Foundation

extension AppRuntime {
    /// Deletes the object `id` of `className`: before hook (which may refuse), one transaction with
    /// the after hook's outbox event, then the after hook.
    public func delete(_ className: String, id: String, caller: Caller) async throws {
        try SystemClass.check(.delete, className, by: caller)
        let object = try await writable(className, id: id, caller: caller)
        if let beforeDelete = hook(.beforeDelete, className) {
            _ = try await runHook(beforeDelete, input: HookPayload(object), caller: caller)
        }
        let identities = caller.aclIdentities
        let afterDelete = hook(.afterDelete, className)
        let eventId = afterDelete != nil ? RandomUUID.string() : nil
        var outbox: (@Sendable (ParseObject) -> OutboxEvent)?
        if let eventId {
            outbox = { deleted in
                OutboxEvent(id: eventId, kind: .afterDelete, object: deleted, original: nil, caller: caller)
            }
        }
        try await writeThenAfterHook(eventId, afterDelete) {
            ((), try await storage.delete(className, id: id, check: { current in try Self.checkWrite(current, identities) }, outbox: outbox))
        }
    }
}
