import NIOCore
import NIOHTTP1

/// Drives one keep-alive connection: sends a save, waits for its answer, sends the next, until the
/// end of the run. Answers that arrive inside the measured window are recorded; the warm-up's are not.
final class LoadConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// When measuring starts and when the run ends.
    struct Window: Sendable {
        let start: NIODeadline
        let end: NIODeadline
    }

    private let request: SaveRequest
    private let window: Window
    private let done: EventLoopPromise<LoadResult>
    private var result: LoadResult
    private var sentAt = NIODeadline.now()
    private var status: HTTPResponseStatus?
    private var sent = 0
    private var finished = false

    /// A handler that sends `request` until `window` ends, then closes the connection and fulfils
    /// `done` with what it recorded, with room for `capacity` latencies.
    init(request: SaveRequest, window: Window, capacity: Int, done: EventLoopPromise<LoadResult>) {
        self.request = request
        self.window = window
        self.done = done
        self.result = LoadResult(capacity: capacity)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        send(context)
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
                result.record(saved: status == .created, nanoseconds: UInt64((now - sentAt).nanoseconds))
            }
            if now < window.end { send(context) } else { finish(context) }
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
