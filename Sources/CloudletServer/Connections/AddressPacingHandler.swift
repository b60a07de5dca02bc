import CloudletRuntime
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Paces the requests of each client address, across all its connections and whatever app or
/// route they are for, to ``ConnectionLimits/requestsPerAddress``: a request over the address's
/// rate is not refused but held, with its connection's reading paused, until the rate lets it
/// through. A flood from one address (even of `GET /health`, which no app quota counts) then
/// costs the server only the requests the rate admits, and the rest wait in the flooder's own
/// socket buffers; every other address is served as before. Each hold is counted in
/// `cloudlet_requests_paced_total`.
///
/// The handler sits after the HTTP decoder. What was read before the pause (at most one read's
/// worth of pipelined requests) waits here in order, and is handed on, followed by a read-complete
/// event, when its turn comes.
final class AddressPacingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let pace: AddressPace
    private let trustedProxies: TrustedProxies
    private let metrics: CloudletMetrics
    /// The connection's peer, read once.
    private var peer: String??
    /// Parts read and not yet handed on, oldest first.
    private var held = CircularBuffer<HTTPRequestPart>()
    /// The wake-up of a request waiting for its turn.
    private var wakeUp: Scheduled<Void>?

    init(pace: AddressPace, trustedProxies: TrustedProxies, metrics: CloudletMetrics) {
        self.pace = pace
        self.trustedProxies = trustedProxies
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        held.append(unwrapInboundIn(data))
        if wakeUp == nil { handOn(context: context, afterPause: false) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if held.isEmpty { context.fireChannelReadComplete() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        wakeUp?.cancel()
        wakeUp = nil
        held.removeAll()
        context.fireChannelInactive()
    }

    /// Hands on the held parts until a request's head must wait for its address's turn; then
    /// pauses reading and comes back when the turn is due (`afterPause`). Parts handed on from a
    /// read of the channel's are followed by its own read-complete, so that the handlers after
    /// this one see one per read, as without it; a hand-off after a pause, or a pause, fires one.
    private func handOn(context: ChannelHandlerContext, afterPause: Bool) {
        var handed = false
        while let part = held.first {
            if case .head(let head) = part, let wait = pace.wait(for: address(of: head, context: context)) {
                metrics.requestPaced()
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
                let loop = context.eventLoop.assumeIsolated()
                wakeUp = loop.scheduleTask(in: .nanoseconds(Int64(wait * 1_000_000_000))) { [self] in
                    wakeUp = nil
                    handOn(context: context, afterPause: true)
                }
                if handed { context.fireChannelReadComplete() }
                return
            }
            held.removeFirst()
            context.fireChannelRead(wrapInboundOut(part))
            handed = true
        }
        // Only this handler turns reading off, so only after a pause of its own is it turned back
        // on (asking the channel instead cost a future on every request part).
        guard afterPause else { return }
        if handed { context.fireChannelReadComplete() }
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        context.read()
    }

    private func address(of head: HTTPRequest, context: ChannelHandlerContext) -> String {
        if peer == nil { peer = context.channel.remoteAddress?.ipAddress }
        return trustedProxies.clientAddress(peer: peer ?? nil, forwardedFor: head.headerFields[values: ParseHeaders.forwardedFor]) ?? ""
    }
}

/// The host's rate of requests for each client address (``ConnectionLimits/requestsPerAddress``),
/// shared by every connection: the generic cell rate algorithm over at most 100,000 addresses.
final class AddressPace: Sendable {
    private let quota: RateLimitQuota?
    private let store = InMemoryRateLimitStore()

    /// Paces at `quota`; nil paces nothing.
    init(quota: RateLimitQuota?) {
        self.quota = quota
    }

    /// Seconds a request from `address` must wait for its turn, or nil when it may go now (and
    /// is then counted).
    func wait(for address: String) -> Double? {
        guard let quota else { return nil }
        let state = store.chargeNow([RateLimitCharge(key: address, quota: quota)], now: Date())[0]
        return state.allowed ? nil : max(state.retryAfter, 0.001)
    }
}
