import CloudletRuntime
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP/2 over TLS (ALPN `h2`) to one push provider's host, as APNs and FCM take their sends: up
/// to `connections` connections, each send taking the least busy one, and a further connection
/// opened only when every one open has ``sendsBeforeNextConnection`` sends awaiting answers (an app
/// that sends now and then keeps one connection; a fan-out spreads over all). Each request is two
/// frames on its connection (``HTTP2RequestStreams``), not a channel of its own, and the requests
/// made in one event-loop turn leave in one write: the cost of a send is a few frames, not a
/// pipeline. The connection honours the server's stream limit (streams over it wait in NIO's
/// buffer) and its `GOAWAY` (a new connection takes later sends).
final class HTTP2PushTransport: Sendable {
    /// The most connections a provider spreads its sends over unless told otherwise. Apple advises
    /// several for many notifications; each carries a share of the streams (NIO's per-stream work
    /// grows with the streams open on one connection), and the connections' TLS and HTTP/2 work is
    /// spread over the event loops.
    static let defaultConnections = 4

    /// How many sends awaiting answers make a connection busy enough that the next send opens
    /// another (while fewer than `connections` are open): 8, a quarter of the 32 rows an app's work
    /// loop runs at once (``WorkSettings/concurrency``), so that a fan-out uses all four default connections.
    static let sendsBeforeNextConnection = 8

    /// Where the connections go, or why they cannot.
    private let target: Result<Target, HTTP2PushTransportError>
    private let slots: Mutex<Slots>
    private let connectionCount: Int
    private let timeout: TimeAmount
    private let group: any EventLoopGroup

    private struct Target: Sendable {
        var host: String
        var port: Int
        /// `host[:port]`, the `:authority` of every request.
        var authority: String
        /// The base URL's path, before every request's.
        var pathPrefix: String
        /// The name the certificate must carry, nil for an IP address (NIO then checks the address).
        var serverName: String?
        var tls: NIOSSLContext
    }

    /// One connection's place: none yet, being opened, open, or the transport shut down.
    private enum Slot {
        case empty
        case opening(EventLoopFuture<HTTP2RequestStreams>)
        case open(HTTP2RequestStreams)
        case shutDown
    }

    /// The connections' places, and the sends each has taken that await their answers (those
    /// waiting for it to open included).
    private struct Slots {
        var slots: [Slot]
        var sends: [Int]

        init(count: Int) {
            slots = Array(repeating: .empty, count: count)
            sends = Array(repeating: 0, count: count)
        }

        /// The slot the next send takes: the one with the fewest sends among those open (and taking
        /// streams) or opening, unless each has `busy` or more and a slot is free to open another.
        /// Nil once the transport is shut down.
        func next(busy: Int) -> Int? {
            var leastBusy: Int?
            var free: Int?
            for index in slots.indices {
                switch slots[index] {
                case .shutDown:
                    return nil
                case .open(let streams) where !streams.takesStreams:
                    free = free ?? index
                case .empty:
                    free = free ?? index
                case .open, .opening:
                    if leastBusy.map({ sends[index] < sends[$0] }) ?? true { leastBusy = index }
                }
            }
            if let leastBusy, sends[leastBusy] < busy || free == nil { return leastBusy }
            return free
        }
    }

    /// A transport to the host of `baseURL` (`https://host[:port]`), trusting `trustRoots` (the
    /// system's by default), over `connections` connections (at least one), waiting at most
    /// `timeout` for an answer, so that a send ends (sent, or to be retried) in bounded time.
    init(
        baseURL: String, trustRoots: NIOSSLTrustRoots = .default, connections: Int = defaultConnections, timeout: TimeAmount = .seconds(10),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        target = Result { try Self.target(of: baseURL, trustRoots: trustRoots) }.mapError {
            $0 as? HTTP2PushTransportError ?? .unusableURL(baseURL, String(describing: $0))
        }
        connectionCount = max(connections, 1)
        slots = Mutex(Slots(count: connectionCount))
        self.timeout = timeout
        self.group = group
    }

    private static func target(of baseURL: String, trustRoots: NIOSSLTrustRoots) throws -> Target {
        guard let url = URL(string: baseURL), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw HTTP2PushTransportError.unusableURL(baseURL, "not an https URL with a host")
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = trustRoots
        tls.applicationProtocols = ["h2"]
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return Target(
            host: host, port: url.port ?? 443, authority: url.port.map { "\(host):\($0)" } ?? host,
            pathPrefix: url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path, serverName: isAddress ? nil : host,
            tls: try NIOSSLContext(configuration: tls))
    }

    /// POSTs `body` to `path` (after the base URL's own path) with `headers`, whose names must be
    /// lower-case, as HTTP/2 wants. A header whose value differs on every request should be
    /// `.nonIndexable`, so that it does not push the repeated ones out of the connection's header
    /// table. Throws when no answer came (no connection, the connection or stream failed, the time ran out).
    func post(_ path: String, headers: HPACKHeaders, body: [UInt8]) async throws -> PushHTTPResponse {
        let target = try target.get()
        var attempts = 0
        while true {
            do {
                return try await send(target.pathPrefix + path, headers: headers, body: body, to: target)
            } catch HTTP2PushTransportError.notSent where attempts < 2 {
                // The server never processed it (GOAWAY came first, or it refused the stream): send it again.
                attempts += 1
            }
        }
    }

    /// One attempt of a send, on the connection ``Slots/next(busy:)`` picks, counted among its sends
    /// until it ends.
    private func send(_ path: String, headers: HPACKHeaders, body: [UInt8], to target: Target) async throws -> PushHTTPResponse {
        let index = try slots.withLock { slots in
            guard let index = slots.next(busy: Self.sendsBeforeNextConnection) else { throw HTTP2PushTransportError.shutDown }
            slots.sends[index] += 1
            return index
        }
        defer { slots.withLock { $0.sends[index] -= 1 } }
        return try await connection(at: index, to: target).post(path, headers: headers, body: body, timeout: timeout)
    }

    /// Closes the connections; sends still in flight fail, and later ones throw.
    func shutdown() async {
        let open = slots.withLock { slots in
            defer { slots.slots = Array(repeating: .shutDown, count: connectionCount) }
            return slots.slots.compactMap { slot -> HTTP2RequestStreams? in
                if case .open(let streams) = slot { return streams }
                return nil
            }
        }
        for streams in open { await streams.close() }
    }

    /// The open connection of slot `index`, opening one if it has none (or its connection takes no
    /// more streams).
    private func connection(at index: Int, to target: Target) async throws -> HTTP2RequestStreams {
        enum Next {
            case ready(HTTP2RequestStreams)
            case wait(EventLoopFuture<HTTP2RequestStreams>)
            case open(EventLoopPromise<HTTP2RequestStreams>)
        }
        let next = try slots.withLock { slots -> Next in
            switch slots.slots[index] {
            case .open(let streams) where streams.takesStreams: return .ready(streams)
            case .opening(let future): return .wait(future)
            case .shutDown: throw HTTP2PushTransportError.shutDown
            case .empty, .open:
                let promise = group.next().makePromise(of: HTTP2RequestStreams.self)
                slots.slots[index] = .opening(promise.futureResult)
                return .open(promise)
            }
        }
        switch next {
        case .ready(let streams): return streams
        case .wait(let future): return try await future.get()
        case .open(let promise):
            open(target, into: promise, slot: index)
            return try await promise.futureResult.get()
        }
    }

    /// Connects slot `index` to `target`, completing `promise` with the connection's streams (or the error).
    private func open(_ target: Target, into promise: EventLoopPromise<HTTP2RequestStreams>, slot index: Int) {
        promise.futureResult.whenComplete { [weak self] result in
            self?.settle(index, promise.futureResult, with: try? result.get())
        }
        let onClose: @Sendable (HTTP2RequestStreams) -> Void = { [weak self] closed in self?.closed(closed, slot: index) }
        ClientBootstrap(group: promise.futureResult.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        NIOSSLClientHandler(context: target.tls, serverHostname: target.serverName),
                        NIOHTTP2Handler(mode: .client, initialSettings: [HTTP2Setting(parameter: .enablePush, value: 0)]),
                        HTTP2RequestStreams(eventLoop: channel.eventLoop, authority: target.authority, onClose: onClose),
                    ])
                }
            }
            .connect(host: target.host, port: target.port)
            .flatMapThrowing { channel in try channel.pipeline.syncOperations.handler(type: HTTP2RequestStreams.self) }
            .cascade(to: promise)
    }

    /// Slot `index`, still opening `future`, is now open with `streams`, or empty if that failed.
    private func settle(_ index: Int, _ future: EventLoopFuture<HTTP2RequestStreams>, with streams: HTTP2RequestStreams?) {
        slots.withLock { slots in
            guard case .opening(let opening) = slots.slots[index], opening === future else { return }
            slots.slots[index] = streams.map(Slot.open) ?? .empty
        }
    }

    /// The connection of `streams` closed: its slot opens a new one at the next send.
    private func closed(_ streams: HTTP2RequestStreams, slot index: Int) {
        slots.withLock { slots in
            if case .open(let current) = slots.slots[index], current === streams { slots.slots[index] = .empty }
        }
    }

    /// A transport dropped without ``shutdown()`` still closes its connections.
    deinit {
        for slot in slots.withLock({ $0.slots }) {
            if case .open(let streams) = slot { streams.closeSoon() }
        }
    }
}

/// Why an HTTP/2 send got no answer.
enum HTTP2PushTransportError: Error, CustomStringConvertible {
    case unusableURL(String, String)
    case shutDown
    case connectionClosed
    /// The server never processed the request: its connection stopped taking streams first, or
    /// the server refused the stream (`REFUSED_STREAM`).
    case notSent
    case timedOut
    case streamReset(HTTP2ErrorCode)
    case answerTooLarge
    case malformedAnswer
    /// NIO refused to send the request: a header name or value HTTP/2 cannot carry. Sending it
    /// again cannot help.
    case invalidHeader(String)

    var description: String {
        switch self {
        case .unusableURL(let url, let why): "cannot send to \(url): \(why)"
        case .shutDown: "the provider was shut down"
        case .connectionClosed: "the connection closed before the answer"
        case .notSent: "the connection stopped taking requests before this one was sent"
        case .timedOut: "no answer in time"
        case .streamReset(let code): "the server reset the stream (\(code))"
        case .answerTooLarge: "the answer is larger than \(PushHTTPResponse.maximumBodyBytes) bytes"
        case .malformedAnswer: "the answer has no valid :status"
        case .invalidHeader(let why): "a header HTTP/2 cannot carry: \(why)"
        }
    }

    /// NIO's `streamError`, raised while a request was written, as the transport reports it: a
    /// header HTTP/2 cannot carry becomes ``invalidHeader(_:)``, anything else stays as it is.
    static func refusal(of streamError: NIOHTTP2Errors.StreamError) -> any Error {
        let base = streamError.baseError
        guard
            base is NIOHTTP2Errors.InvalidHTTP2HeaderFieldName || base is NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue
                || base is NIOHTTP2Errors.ForbiddenHeaderField
        else { return streamError }
        return invalidHeader(String(describing: base))
    }
}

extension PushOutcome {
    /// The outcome of a send to `provider` that `error` ended before an answer: a request NIO
    /// refused to write fails the job (its messages share their headers), anything else (a lost
    /// connection, no answer in time) is retried.
    static func unanswered(by provider: String, _ error: any Error) -> PushOutcome {
        if case HTTP2PushTransportError.invalidHeader = error { return .jobFailed(reason: "InvalidHeader") }
        return .retry(reason: "\(provider) unreachable: \(error)")
    }
}
