import Cloudlet
import NIOCore

/// A hook's input (or original) as the host holds it: a value, an object, its JSON, or an object and
/// its JSON. The in-process executor reads the value and a worker's executor sends the JSON; either
/// is made from the other only when it is asked for and missing, so bytes the host already has (an
/// outbox row's) travel as they are.
public struct HookPayload: Sendable {
    private let storedValue: ParseValue?
    private let storedObject: ParseObject?
    private let storedJSON: ByteBuffer?

    /// A payload of `value`.
    public init(_ value: ParseValue) {
        (storedValue, storedObject, storedJSON) = (value, nil, nil)
    }

    /// A payload of `object` in its REST form, made only if the value is asked for.
    public init(_ object: ParseObject) {
        (storedValue, storedObject, storedJSON) = (nil, object, nil)
    }

    /// A payload of `object`, whose REST JSON `json` already is.
    public init(_ object: ParseObject, json: ByteBuffer) {
        (storedValue, storedObject, storedJSON) = (nil, object, json)
    }

    /// The value.
    public func value() throws -> ParseValue {
        if let storedValue { return storedValue }
        if let storedObject { return .object(storedObject.json) }
        return try ParseValue(json: storedJSON ?? ByteBuffer())
    }

    /// The value's JSON.
    public var json: ByteBuffer {
        if let storedJSON { return storedJSON }
        if let storedObject { return ParseValue.object(storedObject.json).jsonBuffer }
        return (storedValue ?? .null).jsonBuffer
    }
}
