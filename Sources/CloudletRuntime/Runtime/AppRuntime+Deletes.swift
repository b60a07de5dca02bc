import Cloudlet
import Foundation

extension AppRuntime {
    /// Deletes the object `id` of `className`: before hook (which may refuse), one transaction with
    /// the after hook queued, then the after hook.
    public func delete(_ className: String, id: String, caller: Caller) async throws {
        try SystemClass.check(.delete, className, by: caller)
        let object = try await writable(className, id: id, caller: caller)
        if let beforeDelete = hook(.beforeDelete, className) {
            _ = try await runHook(beforeDelete, input: HookPayload(object), caller: caller)
        }
        let identities = caller.aclIdentities
        try await writeThenAfterHook(hook(.afterDelete, className)) { hold in
            let outbox = Self.afterHookEvent(.afterDelete, original: nil, caller: caller, hold: hold)
            return ((), try await stores.objects.delete(className, id: id, check: { current in try Self.checkWrite(current, identities) }, outbox: outbox))
        }
    }
}
