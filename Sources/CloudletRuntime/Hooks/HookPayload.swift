import Cloudlet
import NIOCore

/// A hook's input (or original) as the host holds it: a value, or an object with its REST JSON when
/// the host already has those bytes (an after hook's queued row's). The in-process executor reads the value and a
/// worker's executor sends the JSON; either is made only when it is asked for and missing, so bytes
/// the host already has travel as they are.
public struct HookPayload: Sendable {
    private enum Content: Sendable {
        case value(ParseValue)
        case object(ParseObject, json: ByteBuffer?)
    }

    private let content: Content

    /// A payload of `value`.
    public init(_ value: ParseValue) {
        content = .value(value)
    }

    /// A payload of `object` in its REST form, made only when it is asked for.
    public init(_ object: ParseObject) {
        content = .object(object, json: nil)
    }

    /// A payload of `object`, whose REST JSON `json` already is.
    public init(_ object: ParseObject, json: ByteBuffer) {
        content = .object(object, json: json)
    }

    /// The value.
    public var value: ParseValue {
        switch content {
        case .value(let value): value
        case .object(let object, _): .object(object.json)
        }
    }

    /// The value's JSON.
    public var json: ByteBuffer {
        switch content {
        case .value(let value): value.jsonBuffer
        case .object(let object, let json): json ?? ParseValue.object(object.json).jsonBuffer
        }
    }
}
