import CloudletRuntime
import NIOCore
import NIOHTTPTypes

/// Closes a connection that holds the server without using it (``ConnectionLimits``):
///
/// - idle: no request under way and no byte of the next one within ``ConnectionLimits/idleTimeout``
///   of the connection opening or of its last answer;
/// - slow head: a request's head still incomplete ``ConnectionLimits/headerTimeout`` after its
///   first byte (`GET / HTTP/1.1\r\nX-a: ` and nothing more);
/// - slow body: a body arriving slower, on average since its head, than
///   ``ConnectionLimits/minimumBodyBytesPerSecond`` once the grace of the header timeout is over;
/// - unread answer: an answer the client does not read, so that the connection cannot take more of
///   it, for ``ConnectionLimits/idleTimeout``.
///
/// Otherwise, while an answer is being made (the request read whole) no deadline runs: hooks have their own.
/// Each close is counted in `cloudlet_connections_timed_out_total{reason}`. The handler sits after
/// the HTTP decoder: the bytes of an incomplete head show as a read that brought no request part.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Why a connection was closed, as the `reason` label of the metric.
    enum Reason: String {
        case idle, head, body, unread
    }

    /// Where the reading of requests stands.
    private enum Reading {
        /// Between requests since the instant given (the last request read, or the connection opened).
        case betweenRequests(since: NIODeadline)
        /// A head has begun to arrive at the instant given.
        case head(since: NIODeadline)
        /// A head arrived at the instant given; so many bytes of its body since.
        case body(since: NIODeadline, bytes: Int)
    }

    private let limits: ConnectionLimits
    private let metrics: CloudletMetrics
    private var reading = Reading.betweenRequests(since: .now())
    /// Requests read whose answer has not ended.
    private var answersPending = 0
    /// The last answer's end.
    private var lastAnswer = NIODeadline.now()
    /// Whether the read under way brought a request part.
    private var partRead = false
    /// Since when the connection has taken no more of the answers (the client not reading them).
    private var unwritableSince: NIODeadline?
    private var timer: (deadline: NIODeadline, task: Scheduled<Void>)?
    /// Whether the connection is closed or closing: no timer runs any more.
    private var closed = false

    init(limits: ConnectionLimits, metrics: CloudletMetrics) {
        self.limits = limits
        self.metrics = metrics
    }

    func channelActive(context: ChannelHandlerContext) {
        reading = .betweenRequests(since: .now())
        armTimer(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    /// The connection is closing: no timer runs any more.
    private func stop() {
        closed = true
        timer?.task.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partRead = true
        switch unwrapInboundIn(data) {
        case .head:
            answersPending += 1
            reading = .body(since: .now(), bytes: 0)
            armTimer(context)
        case .body(let bytes):
            if case .body(let since, let read) = reading { reading = .body(since: since, bytes: read + bytes.readableBytes) }
        case .end:
            reading = .betweenRequests(since: .now())
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if !partRead, case .betweenRequests = reading {
            reading = .head(since: .now())
            armTimer(context)
        }
        partRead = false
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        unwritableSince = context.channel.isWritable ? nil : .now()
        armTimer(context)
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answersPending = max(0, answersPending - 1)
            lastAnswer = .now()
            context.write(data, promise: promise)
            armTimer(context)
            return
        }
        context.write(data, promise: promise)
    }

    /// When the connection is to be closed as things stand, and why; nil while an answer is made
    /// and taken.
    private var deadline: (NIODeadline, Reason)? {
        let unread = unwritableSince.map { ($0 + TimeAmount(limits.idleTimeout), Reason.unread) }
        guard let reading = readingDeadline else { return unread }
        guard let unread else { return reading }
        return unread.0 < reading.0 ? unread : reading
    }

    /// When the reading of requests (or the wait for one) is to end, and why.
    private var readingDeadline: (NIODeadline, Reason)? {
        switch reading {
        case .head(let since):
            return (since + TimeAmount(limits.headerTimeout), .head)
        case .body(let since, let bytes):
            let allowed = TimeAmount.nanoseconds(Int64(Double(bytes) / Double(max(1, limits.minimumBodyBytesPerSecond)) * 1e9))
            return (since + TimeAmount(limits.headerTimeout) + allowed, .body)
        case .betweenRequests(let since):
            guard answersPending == 0 else { return nil }
            return (max(since, lastAnswer) + TimeAmount(limits.idleTimeout), .idle)
        }
    }

    /// Makes sure a timer fires no later than the deadline as things stand.
    private func armTimer(_ context: ChannelHandlerContext) {
        guard !closed, let (deadline, _) = deadline else { return }
        if let timer {
            guard deadline < timer.deadline else { return }
            timer.task.cancel()
        }
        let task = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            expire(context)
        }
        timer = (deadline, task)
    }

    /// The timer fired: closes the connection if its deadline has passed, else waits for it.
    private func expire(_ context: ChannelHandlerContext) {
        guard let (deadline, reason) = deadline else { return }
        guard deadline <= .now() else { return armTimer(context) }
        closed = true
        metrics.connectionTimedOut(reason: reason.rawValue)
        context.close(promise: nil)
    }
}
