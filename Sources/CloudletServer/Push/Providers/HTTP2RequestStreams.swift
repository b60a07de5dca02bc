import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import Synchronization

/// The requests of one HTTP/2 connection, as frames: a send is a `HEADERS` and a `DATA` frame on
/// a new client stream, and its answer the `HEADERS` and `DATA` frames that come back on it. The
/// writes of one event-loop turn share one flush (one TLS record, one system call), which is what
/// lets one connection carry thousands of sends a second. Answers larger than
/// ``PushHTTPResponse/maximumBodyBytes``, streams the server resets and streams past their
/// deadline (checked every second) fail; when the connection closes every open stream fails.
///
/// All its state but ``takesStreams`` is touched only on its channel's event loop.
final class HTTP2RequestStreams: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// Received body bytes the connection's window is credited with at once.
    private static let windowUpdateThreshold = 32 * 1024

    let eventLoop: any EventLoop
    private let authority: String
    private let onClose: @Sendable (HTTP2RequestStreams) -> Void
    private let isTakingStreams = Atomic<Bool>(true)
    private var context: ChannelHandlerContext?
    private var streams: [HTTP2StreamID: PendingAnswer] = [:]
    private var nextStreamID: Int32 = 1
    private var isFlushScheduled = false
    /// The stream whose request is being written: a stream error NIO raises meanwhile is about the
    /// request (a header it will not send), not about the answer.
    private var requestBeingWritten: HTTP2StreamID?
    private var uncreditedBytes = 0
    private var deadlineCheck: RepeatedTask?

    /// A request waiting for its answer, and what has come of it so far.
    private struct PendingAnswer {
        var continuation: CheckedContinuation<PushHTTPResponse, any Error>
        var deadline: NIODeadline
        var status: Int?
        var headers = HTTPHeaders()
        var body: [UInt8] = []
    }

    /// Streams for a connection on `eventLoop` whose requests name `authority`; `onClose` is told
    /// when the connection closes.
    init(eventLoop: any EventLoop, authority: String, onClose: @escaping @Sendable (HTTP2RequestStreams) -> Void) {
        self.eventLoop = eventLoop
        self.authority = authority
        self.onClose = onClose
    }

    /// Whether new requests may use this connection: not once it closed, the server sent `GOAWAY`
    /// or its stream ids ran out.
    var takesStreams: Bool { isTakingStreams.load(ordering: .relaxed) }

    /// POSTs `body` to `path` with `headers` on a new stream, failing after `timeout`.
    func post(_ path: String, headers: HPACKHeaders, body: [UInt8], timeout: TimeAmount) async throws -> PushHTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            if eventLoop.inEventLoop {
                start(path, headers, body, deadline: .now() + timeout, continuation)
            } else {
                eventLoop.execute { self.start(path, headers, body, deadline: .now() + timeout, continuation) }
            }
        }
    }

    /// Closes the connection and waits until it is closed.
    func close() async {
        let closed = eventLoop.makePromise(of: Void.self)
        eventLoop.execute {
            guard let context = self.context else { return closed.succeed() }
            context.close(promise: closed)
        }
        try? await closed.futureResult.get()
    }

    /// Closes the connection without waiting.
    func closeSoon() {
        eventLoop.execute { self.context?.close(promise: nil) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        deadlineCheck = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [self] _ in
            failStreamsPastTheirDeadline()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isTakingStreams.store(false, ordering: .relaxed)
        deadlineCheck?.cancel()
        deadlineCheck = nil
        let pending = streams
        streams = [:]
        for answer in pending.values { answer.continuation.resume(throwing: HTTP2PushTransportError.connectionClosed) }
        self.context = nil
        onClose(self)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            let isAboutTheRequest = streamError.streamID == requestBeingWritten
            finish(streamError.streamID, isAboutTheRequest ? HTTP2PushTransportError.refusal(of: streamError) : streamError)
        } else {
            // A connection error: NIO's HTTP/2 handler has sent GOAWAY; the open streams fail as the channel closes.
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            received(headers.headers, endStream: headers.endStream, on: frame.streamID)
        case .data(let data):
            received(data, on: frame.streamID, context: context)
        case .rstStream(let code):
            // REFUSED_STREAM: the server did not process it (a burst sent before its stream limit was known), so it may be sent again.
            finish(frame.streamID, code == .refusedStream ? HTTP2PushTransportError.notSent : HTTP2PushTransportError.streamReset(code))
        case .goAway(let lastStreamID, _, _):
            stopTakingStreams()
            // The server did not process the streams after `lastStreamID`: they may be sent again.
            for id in streams.keys where id > lastStreamID { finish(id, HTTP2PushTransportError.notSent) }
        default:
            break
        }
    }

    private func start(
        _ path: String, _ headers: HPACKHeaders, _ body: [UInt8], deadline: NIODeadline,
        _ continuation: CheckedContinuation<PushHTTPResponse, any Error>
    ) {
        guard let context, takesStreams else { return continuation.resume(throwing: HTTP2PushTransportError.notSent) }
        let id = HTTP2StreamID(nextStreamID)
        if nextStreamID >= Int32.max - 2 { stopTakingStreams() } else { nextStreamID += 2 }
        var block = HPACKHeaders([(":method", "POST"), (":scheme", "https"), (":authority", authority)])
        block.reserveCapacity(headers.count + 5)
        // A path names one device: kept out of the header tables, where it would push out the headers every request repeats.
        block.add(name: ":path", value: path, indexing: .nonIndexable)
        block.add(contentsOf: headers)
        block.add(name: "content-length", value: String(body.count))
        streams[id] = PendingAnswer(continuation: continuation, deadline: deadline)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { [self] error in finish(id, error) }
        requestBeingWritten = id
        defer { requestBeingWritten = nil }
        if body.isEmpty {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: block, endStream: true)))), promise: written)
        } else {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: block)))), promise: nil)
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(context.channel.allocator.buffer(bytes: body)), endStream: true)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(data))), promise: written)
        }
        flushAtTheEndOfThisTurn()
    }

    /// One flush for every write of this event-loop turn.
    private func flushAtTheEndOfThisTurn() {
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        eventLoop.execute { [self] in
            isFlushScheduled = false
            context?.flush()
        }
    }

    private func received(_ headers: HPACKHeaders, endStream: Bool, on id: HTTP2StreamID) {
        guard streams[id] != nil else { return }
        if streams[id]?.status == nil {
            guard let status = headers.first(name: ":status").flatMap({ Int($0) }) else {
                return finish(id, HTTP2PushTransportError.malformedAnswer)
            }
            // An informational answer (100 Continue): the real one follows.
            if (100..<200).contains(status) { return }
            var fields = HTTPHeaders()
            for (name, value, _) in headers where !name.hasPrefix(":") { fields.add(name: name, value: value) }
            streams[id]?.status = status
            streams[id]?.headers = fields
        }
        if endStream { finish(id, nil) }
    }

    private func received(_ data: HTTP2Frame.FramePayload.Data, on id: HTTP2StreamID, context: ChannelHandlerContext) {
        guard case .byteBuffer(let buffer) = data.data else { return }
        creditConnectionWindow(buffer.readableBytes + (data.paddingBytes ?? 0), context: context)
        guard let answer = streams[id] else { return }
        guard answer.status != nil else { return finish(id, HTTP2PushTransportError.malformedAnswer) }
        guard answer.body.count + buffer.readableBytes <= PushHTTPResponse.maximumBodyBytes else {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
            flushAtTheEndOfThisTurn()
            return finish(id, HTTP2PushTransportError.answerTooLarge)
        }
        streams[id]?.body.append(contentsOf: buffer.readableBytesView)
        if data.endStream { finish(id, nil) }
    }

    /// Gives the server back the connection window its `DATA` frames used. Stream windows are
    /// never credited: a stream's first window (65,535 bytes) holds any answer a push provider sends.
    private func creditConnectionWindow(_ bytes: Int, context: ChannelHandlerContext) {
        uncreditedBytes += bytes
        guard uncreditedBytes >= Self.windowUpdateThreshold else { return }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: uncreditedBytes))), promise: nil)
        uncreditedBytes = 0
        flushAtTheEndOfThisTurn()
    }

    /// Ends stream `id`'s wait: with `failure`, or (nil) with the answer it has.
    private func finish(_ id: HTTP2StreamID, _ failure: (any Error)?) {
        guard let answer = streams.removeValue(forKey: id) else { return }
        if let failure {
            answer.continuation.resume(throwing: failure)
        } else {
            answer.continuation.resume(returning: PushHTTPResponse(status: answer.status ?? 0, headers: answer.headers, body: answer.body))
        }
        if !takesStreams, streams.isEmpty { context?.close(promise: nil) }
    }

    /// No new streams: they go to a new connection, and this one closes once its streams end.
    private func stopTakingStreams() {
        isTakingStreams.store(false, ordering: .relaxed)
        if streams.isEmpty { context?.close(promise: nil) }
    }

    private func failStreamsPastTheirDeadline() {
        let now = NIODeadline.now()
        let late = streams.filter { $0.value.deadline <= now }.keys
        guard !late.isEmpty, let context else { return }
        for id in late {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
            finish(id, HTTP2PushTransportError.timedOut)
        }
        flushAtTheEndOfThisTurn()
    }
}
