import NIOCore
import NIOHTTP1

/// Drives one keep-alive connection: sends a request, waits for its answer, sends the next, until
/// the end of the run — back to back, or at most one per `pace` when paced (a late answer delays
/// the next request; missed sends are not made up in a burst). Answers that arrive inside the
/// measured window are recorded; the warm-up's are not.
final class LoadConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// When measuring starts and when the run ends.
    struct Window: Sendable {
        let start: NIODeadline
        let end: NIODeadline
    }

    private let request: LoadRequest
    private let window: Window
    private let pace: TimeAmount?
    private let done: EventLoopPromise<LoadResult>
    private var result: LoadResult
    private var sentAt = NIODeadline.now()
    private var nextSend: NIODeadline
    private var status: HTTPResponseStatus?
    private var sent = 0
    private var finished = false

    /// A handler that sends `request` (at most one per `pace`, if given, the first at `firstSend` or
    /// as soon as connected if that is later) until `window` ends, then closes the connection and
    /// fulfils `done` with what it recorded, with room for `capacity` latencies.
    init(
        request: LoadRequest, window: Window, pace: TimeAmount?, firstSend: NIODeadline, capacity: Int,
        done: EventLoopPromise<LoadResult>
    ) {
        self.request = request
        self.window = window
        self.pace = pace
        self.nextSend = firstSend
        self.done = done
        self.result = LoadResult(capacity: capacity, seconds: Double((window.end - window.start).nanoseconds) / 1e9)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        nextSend = max(nextSend, .now())
        sendAt(nextSend, context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = head.status
        case .body:
            break
        case .end:
            let now = NIODeadline.now()
            if sentAt >= window.start, now <= window.end {
                result.record(
                    status: status?.code ?? 0, nanoseconds: UInt64((now - sentAt).nanoseconds),
                    second: Int((now - window.start).nanoseconds / 1_000_000_000))
            }
            guard now < window.end else { return finish(context) }
            guard let pace else { return send(context) }
            nextSend = max(nextSend + pace, now)
            sendAt(nextSend, context)
        }
    }

    private func sendAt(_ deadline: NIODeadline, _ context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.send(context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished {
            result.errors += 1
            finish(context)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ context: ChannelHandlerContext) {
        guard !finished else { return }
        let variant = request.variants[sent % request.variants.count]
        sent += 1
        status = nil
        sentAt = .now()
        context.write(wrapOutboundOut(.head(variant.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(variant.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func finish(_ context: ChannelHandlerContext) {
        finished = true
        done.succeed(result)
        context.close(promise: nil)
    }
}
