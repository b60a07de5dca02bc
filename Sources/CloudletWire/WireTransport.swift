/// One end of a connection that carries CloudletWire messages: what a worker's loop and a pool's
/// message handling send on. ``WireConnection`` is the real one, over a socket; the test support
/// has an in-memory pair, so that both sides can be run without processes.
///
/// What arrives at an end goes to the ``WireReceiver`` it was opened with.
public protocol WireTransport: AnyObject, Sendable {
    /// The longest message ``send(_:)`` writes, in bytes.
    var maximumFrameBytes: Int { get }

    /// Sends `message`. Returns false, sending nothing, if it is over the size bound.
    @discardableResult
    func send(_ message: WireMessage) -> Bool

    /// Closes the connection once the messages sent before are on their way.
    func close()
}

/// What one end of a connection does with what arrives, in the order it arrives, one at a time.
public struct WireReceiver: Sendable {
    /// A message arrived.
    public var message: @Sendable (WireMessage) -> Void
    /// A frame over the size bound arrived: only its head is kept.
    public var oversized: @Sendable (WireFrameHead) -> Void
    /// The connection ended (once).
    public var closed: @Sendable () -> Void

    public init(
        message: @escaping @Sendable (WireMessage) -> Void, oversized: @escaping @Sendable (WireFrameHead) -> Void,
        closed: @escaping @Sendable () -> Void = {}
    ) {
        self.message = message
        self.oversized = oversized
        self.closed = closed
    }
}
