import Cloudlet
import Foundation

/// An object encoded once for every place a write puts it: its row's timestamp, ACL and fields
/// columns, and its REST JSON — the queued after hook's copy and the hook's input — spliced from those
/// columns rather than encoded again.
public struct ObjectText: Sendable, Hashable {
    /// `createdAt` in Parse's format.
    public let createdAt: String
    /// `updatedAt` in Parse's format.
    public let updatedAt: String
    /// The ACL's JSON, if the object has one.
    public let acl: String?
    /// The fields' JSON object.
    public let fields: String
    /// The object as Parse's REST API shows it (``ParseObject/json``), as JSON.
    public let rest: String

    /// The text of `object` (an object without timestamps gets the current time).
    public init(_ object: ParseObject) {
        createdAt = ParseDate.string(from: object.createdAt ?? Date())
        updatedAt = ParseDate.string(from: object.updatedAt ?? Date())
        acl = object.acl.map { JSONWriter.string($0.json) }
        fields = JSONWriter.string(.object(object.fields))
        rest = Self.adding(
            [
                "objectId": object.objectId.map(JSONWriter.quoted), "createdAt": JSONWriter.quoted(createdAt),
                "updatedAt": JSONWriter.quoted(updatedAt), "ACL": acl,
            ], to: fields)
    }

    /// The JSON object `object` with `members` (each already JSON; nil ones left out) added, without
    /// encoding either again. The names are literals that need no escape in JSON.
    package static func adding(_ members: KeyValuePairs<StaticString, String?>, to object: String) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(object.utf8.count + members.reduce(0) { $0 + $1.key.withUTF8Buffer(\.count) + ($1.value?.utf8.count ?? 0) + 4 })
        // Appended whole and then cut: a String's bytes are copied at once, a slice's one by one.
        text.append(contentsOf: object.utf8)
        text.removeLast()
        for case let (key, value?) in members {
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "\""))
            key.withUTF8Buffer { text.append(contentsOf: $0) }
            text.append(UInt8(ascii: "\""))
            text.append(UInt8(ascii: ":"))
            text += value.utf8
        }
        text.append(UInt8(ascii: "}"))
        return String(decoding: text, as: UTF8.self)
    }
}
