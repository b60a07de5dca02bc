import Cloudlet
import Foundation

/// An after hook that is owed: queued (a row of the work queue, kind ``WorkKind/afterHook``) in the
/// same transaction as the write it follows, and removed once the hook has run. A row whose
/// process ended before that is claimed again once its lease runs out (at least once).
public struct OutboxEvent: Sendable, Hashable {
    /// Stable across retries; hooks see it as `context.eventId`.
    public let id: String
    /// `afterSave` or `afterDelete`.
    public let kind: HookKind
    /// The object as written (or as it was, for a delete).
    public let object: ParseObject
    /// For an update, the object before it.
    public let original: ParseObject?
    /// Who made the write.
    public let caller: Caller
    /// `object` encoded once: the row of an insert or update takes its columns from it, the queued
    /// row and the after hook its REST JSON.
    public let objectText: ObjectText
    /// `original`'s REST JSON, encoded once for the queued row and the after hook.
    public let originalJSON: String?
    /// How its row is held as it is queued, by the runtime that runs it right after the write; nil
    /// for a row any claim may take at once.
    public let hold: WorkHold?

    public init(
        id: String = RandomUUID.string(), kind: HookKind, object: ParseObject, original: ParseObject?, caller: Caller, hold: WorkHold? = nil
    ) {
        self.id = id
        self.hold = hold
        self.kind = kind
        self.object = object
        self.original = original
        self.caller = caller
        objectText = ObjectText(object)
        originalJSON = original.map { JSONWriter.string(.object($0.json)) }
    }
}
