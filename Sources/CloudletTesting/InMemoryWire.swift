import CloudletWire
import Dispatch
import NIOCore
import Synchronization

/// A connected pair of in-memory CloudletWire transports: a worker's loop and a pool's message
/// handling can talk to each other, or to a test, with no socket and no process.
///
/// Each message is encoded and decoded as on a socket, under the same frame bound: a frame over the
/// receiver's bound arrives as its head only, and one that does not decode closes the connection.
/// What arrives at an end is handed to its receiver in order, one at a time, off the sender's thread.
/// ```swift
/// let (host, worker) = InMemoryWire.pair()
/// host.open(WireReceiver(message: { print($0) }, oversized: { _ in }))
/// worker.send(.pong(id: 1))
/// ```
public final class InMemoryWire: WireTransport {
    /// The longest message ``send(_:)`` writes, and the longest frame this end takes whole.
    public let maximumFrameBytes: Int
    private let queue: DispatchQueue
    private let state = Mutex(State())
    private let peer = Mutex<InMemoryWire?>(nil)

    private struct State {
        var receiver: WireReceiver?
        /// What arrived before the end was opened.
        var held: [ByteBuffer] = []
        var isClosed = false
    }

    private init(label: String, maximumFrameBytes: Int) {
        self.maximumFrameBytes = maximumFrameBytes
        queue = DispatchQueue(label: label)
    }

    /// Two ends connected to each other, each with its own frame bound (by default the real one).
    public static func pair(
        maximumFrameBytes: (first: Int, second: Int) = (WireFraming.maximumFrameBytes, WireFraming.maximumFrameBytes)
    ) -> (InMemoryWire, InMemoryWire) {
        let first = InMemoryWire(label: "cloudlet.wire.first", maximumFrameBytes: maximumFrameBytes.first)
        let second = InMemoryWire(label: "cloudlet.wire.second", maximumFrameBytes: maximumFrameBytes.second)
        first.peer.withLock { $0 = second }
        second.peer.withLock { $0 = first }
        return (first, second)
    }

    /// Starts handing what arrives (and what arrived before) to `receiver`.
    public func open(_ receiver: WireReceiver) {
        let (held, isClosed) = state.withLock { state in
            state.receiver = receiver
            defer { state.held = [] }
            return (state.held, state.isClosed)
        }
        for frame in held { deliver(frame) }
        if isClosed { queue.async { receiver.closed() } }
    }

    /// Whether the connection has been closed, by either end.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    @discardableResult
    public func send(_ message: WireMessage) -> Bool {
        let frame = message.encoded()
        guard frame.readableBytes <= maximumFrameBytes else { return false }
        guard !isClosed, let peer = peer.withLock({ $0 }) else { return true }
        peer.arrive(frame)
        return true
    }

    public func close() {
        end()
        let other = peer.withLock { peer in
            defer { peer = nil }
            return peer
        }
        other?.end()
        other?.peer.withLock { $0 = nil }
    }

    /// A frame from the peer: handed on once the end is open.
    private func arrive(_ frame: ByteBuffer) {
        let open = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            if state.receiver == nil { state.held.append(frame) }
            return state.receiver != nil
        }
        if open { deliver(frame) }
    }

    private func deliver(_ frame: ByteBuffer) {
        queue.async { [self] in
            guard let receiver = state.withLock({ $0.isClosed ? nil : $0.receiver }) else { return }
            guard frame.readableBytes <= maximumFrameBytes else { return receiver.oversized(Self.head(of: frame)) }
            do {
                receiver.message(try WireMessage(decoding: frame))
            } catch {
                close()
            }
        }
    }

    /// The end closes (once): its receiver hears of it after what arrived before.
    private func end() {
        let receiver = state.withLock { state -> WireReceiver?? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            return .some(state.receiver)
        }
        if let receiver, let receiver { queue.async { receiver.closed() } }
    }

    /// What the frame decoder tells of a frame over the bound: its type, id and length.
    private static func head(of frame: ByteBuffer) -> WireFrameHead {
        let version = frame.getInteger(at: frame.readerIndex, as: UInt8.self)
        let type = frame.getInteger(at: frame.readerIndex + 1, as: UInt8.self)
        let id = frame.getInteger(at: frame.readerIndex + 2, as: UInt64.self) ?? 0
        let known = version == WireMessage.version ? type.flatMap(WireMessage.MessageType.init(rawValue:)) : nil
        return WireFrameHead(type: known, id: id, length: frame.readableBytes)
    }
}
