import Cloudlet
import Foundation

extension AppRuntime {
    /// Deletes the object `id` of `className`: before hook (which may refuse), one transaction with
    /// the after hook's outbox event, then the after hook.
    public func delete(_ className: String, id: String, caller: Caller) async throws {
        try Self.checkWritable(className, caller)
        try InstallationRules.checkClientMay("delete", className, caller)
        let object = try await writable(className, id: id, caller: caller)
        if hasHook(.beforeDelete, className) {
            try await invoke(.beforeDelete, className, caller: caller) { [executor] context in
                try await executor.delete(.beforeDelete, DeleteRequest(object: object, context: context))
            }
        }
        let identities = caller.aclIdentities
        let eventId = hasHook(.afterDelete, className) ? UUID().uuidString : nil
        var outbox: (@Sendable (ParseObject) -> OutboxEvent)?
        if let eventId {
            outbox = { deleted in
                OutboxEvent(id: eventId, kind: .afterDelete, object: deleted, original: nil, caller: caller)
            }
        }
        try await withEventInFlight(eventId) {
            try await storage.delete(
                className, id: id, check: { current in try Self.checkWrite(current, identities) }, outbox: outbox)
            if let outbox { await runAfterHook(outbox(object)) }
        }
    }
}
