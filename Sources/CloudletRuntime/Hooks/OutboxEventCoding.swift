import Cloudlet
import Foundation

/// The JSON form an ``OutboxEvent`` is queued in (its row's payload).
package enum OutboxEventCoding {
    /// The event's JSON: its own members, and the object and original as the event already holds them encoded.
    package static func text(_ event: OutboxEvent) -> String {
        var caller: [String: ParseValue] = [
            "master": .bool(event.caller.isMaster), "requestId": .string(event.caller.requestId),
            "roles": .array(event.caller.roles.map(ParseValue.string)),
        ]
        caller["userId"] = event.caller.userId.map(ParseValue.string)
        caller["installationId"] = event.caller.installationId.map(ParseValue.string)
        let members: [String: ParseValue] = [
            "id": .string(event.id), "kind": .string(event.kind.rawValue), "className": .string(event.object.className),
            "caller": .object(caller),
        ]
        return ObjectText.adding(
            ["object": event.objectText.rest, "original": event.originalJSON], to: JSONWriter.string(.object(members)))
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
