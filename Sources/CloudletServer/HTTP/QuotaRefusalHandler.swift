import Cloudlet
import CloudletRuntime
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes

/// Refuses a request on the event loop, as soon as its head is read, when the app it names has
/// used up its quota, or its client address has used up its share of it (unless the request
/// carries a master key, which the middleware checks and which has no share): 429 with code 155, `Retry-After` and the `RateLimit` fields, exactly as
/// ``RateLimitMiddleware`` would answer it, but without handing the request to the router.
///
/// An app flooding the server far over its quota is refused here for less than the server's
/// cheapest route costs (`Benchmarks/Refusals`): no task, no router, no middleware, no thread hop,
/// so the flood takes little from the other apps on the same cores.
/// It charges nothing: a request let through is charged by ``RateLimitMiddleware`` as before,
/// which also covers what this handler does not see: a quota held by a store that cannot answer
/// without waiting, the app named only in the body, file downloads (whose app is in the path),
/// batch operations and the rules. A request with wrong keys for an app over its quota is
/// refused with 429 here rather than 403: the quota is the app's, whoever asks.
///
/// Responses keep the order of the requests: while a request let through is still being served
/// on the connection, the next one is let through too.
final class QuotaRefusalHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let apps: AppDirectory
    private let routes: ParseRouteTable
    private let trustedProxies: TrustedProxies
    /// The connection's peer, read once.
    private var peer: String??
    private let metrics: CloudletMetrics
    private let logger: Logger
    /// Requests let through whose response has not ended yet.
    private var served = 0
    /// Whether the rest of a refused request (its body) is being dropped.
    private var droppingBody = false

    init(apps: AppDirectory, routes: ParseRouteTable, trustedProxies: TrustedProxies, metrics: CloudletMetrics, logger: Logger) {
        self.apps = apps
        self.routes = routes
        self.trustedProxies = trustedProxies
        self.metrics = metrics
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if served == 0, let (app, route, refusal) = refusal(of: head, context: context) {
                droppingBody = true
                refuse(head, app: app, route: route, refusal: refusal, context: context)
                return
            }
            served += 1
        case .body:
            if droppingBody { return }
        case .end:
            if droppingBody {
                droppingBody = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An answer can end without a head having passed here (Hummingbird's 400 for bytes the
        // parser refused), so the count never goes below zero.
        if case .end = unwrapOutboundIn(data) { served = max(0, served - 1) }
        context.write(data, promise: promise)
    }

    /// The app, route pattern and refusal for a request whose app (from its header) is over its
    /// quota, or whose address is over its share. Every request's head passes here, so the cheap
    /// checks come first: the route is matched only for a request to refuse.
    private func refusal(of head: HTTPRequest, context: ChannelHandlerContext) -> (String, String, RateLimitExceeded)? {
        let headers = ParseRequestHeaders(head.headerFields)
        guard let appId = headers.applicationId, let limiter = apps.app(appId)?.rateLimiter else { return nil }
        if peer == nil { peer = context.channel.remoteAddress?.ipAddress }
        let address = trustedProxies.clientAddress(peer: peer ?? nil, forwardedFor: headers.forwardedFor)
        guard let refusal = limiter.quotaRefusalNow(address: address, isMaster: headers.masterKey != nil),
            let path = head.path, let route = routes.label(ofRequestPath: path)
        else { return nil }
        return (appId, route, refusal)
    }

    private func refuse(_ request: HTTPRequest, app: String, route: String, refusal: RateLimitExceeded, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        context.writeParseError(
            refusal.parseError, headers: refusal.headers, close: request.headerFields[.connection]?.lowercased() == "close")
        metrics.rateLimited(app: app)
        var logger = logger
        logger[metadataKey: "request_id"] = "\(RequestID())"
        RequestLogMiddleware.record(
            request.method, (request.path ?? "").prefix { $0 != "?" }, app: app, route: route, status: 429,
            duration: ContinuousClock.now - start, metrics: metrics, logger: logger)
    }
}
