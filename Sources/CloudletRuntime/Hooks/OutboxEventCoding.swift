import Cloudlet
import Foundation

/// The JSON form an ``OutboxEvent`` is queued in (its row's payload).
package enum OutboxEventCoding {
    /// The event's JSON: its own members, and the object and original as the event already holds
    /// them encoded, each member encoded on its own and spliced (no dictionary of them is built).
    package static func text(_ event: OutboxEvent) -> String {
        let quoted = JSONWriter.quoted
        let caller = ObjectText.adding(
            [
                "master": event.caller.isMaster ? "true" : "false", "requestId": quoted(event.caller.requestId),
                "roles": JSONWriter.string(.array(event.caller.roles.map(ParseValue.string))),
                "userId": event.caller.userId.map(quoted), "installationId": event.caller.installationId.map(quoted),
            ], to: "{}")
        return ObjectText.adding(
            [
                "id": quoted(event.id), "kind": quoted(event.kind.rawValue), "className": quoted(event.object.className),
                "caller": caller, "object": event.objectText.rest, "original": event.originalJSON,
            ], to: "{}")
    }

    /// The event `value` holds, or nil if it is no event's JSON.
    package static func decode(_ value: ParseValue) -> OutboxEvent? {
        guard let id = value["id"]?.stringValue, let kind = value["kind"]?.stringValue.flatMap(HookKind.init(rawValue:)),
            let className = value["className"]?.stringValue, let object = value["object"]?.objectValue,
            let caller = value["caller"], let requestId = caller["requestId"]?.stringValue
        else { return nil }
        return OutboxEvent(
            id: id, kind: kind, object: ParseObject(className: className, json: object),
            original: value["original"]?.objectValue.map { ParseObject(className: className, json: $0) },
            caller: Caller(
                userId: caller["userId"]?.stringValue, roles: caller["roles"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                isMaster: caller["master"]?.boolValue ?? false,
                installationId: caller["installationId"]?.stringValue, requestId: requestId))
    }
}
