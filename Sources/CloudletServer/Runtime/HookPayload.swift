import Cloudlet
import NIOCore

/// A hook's input (or original) as the host holds it: the value, its JSON, or both. The in-process
/// executor reads the value and a worker's executor sends the JSON; either is made from the other
/// only when it is asked for and missing, so bytes the host already has (an outbox row's) travel as they are.
public struct HookPayload: Sendable {
    private let storedValue: ParseValue?
    private let storedJSON: ByteBuffer?

    /// A payload of `value`.
    public init(_ value: ParseValue) {
        storedValue = value
        storedJSON = nil
    }

    /// A payload of the JSON `json`, parsed only if the value is asked for.
    public init(json: ByteBuffer) {
        storedValue = nil
        storedJSON = json
    }

    /// A payload of `value`, whose JSON `json` already is.
    public init(_ value: ParseValue, json: ByteBuffer) {
        storedValue = value
        storedJSON = json
    }

    /// The value.
    public func value() throws -> ParseValue {
        if let storedValue { return storedValue }
        return try ParseValue(json: storedJSON ?? ByteBuffer())
    }

    /// The value's JSON.
    public var json: ByteBuffer {
        storedJSON ?? (storedValue ?? .null).jsonBuffer
    }
}
