import AsyncHTTPClient
import Cloudlet
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// The HTTP client of the webhook provider and of FCM's OAuth exchange: an `HTTPClient` that
/// speaks HTTP/1.1 or HTTP/2, whichever the server offers, to any URL. Trusts the system's roots
/// unless given others. (APNs and FCM sends go over ``HTTP2PushTransport``.)
final class PushHTTPTransport: Sendable {
    /// The most connections the client keeps open to one host.
    static let connectionsPerHost = 8

    private let client: HTTPClient
    private let timeout: TimeAmount

    /// A client trusting `trustRoots` (the system's by default), waiting at most `timeout` for an
    /// answer, so that a send ends (sent, or to be retried) in bounded time. A connection that
    /// cannot be made fails its send at once (to be retried by the delivery's backoff) rather than
    /// being tried again within the send until its time runs out.
    init(trustRoots: NIOSSLTrustRoots = .default, timeout: TimeAmount = .seconds(10)) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = trustRoots
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.connectionPool.idleTimeout = .minutes(5)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connectionsPerHost
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.timeout = timeout
    }

    /// POSTs `body` to `url` with `headers`. Throws when no answer came (the connection failed or
    /// the time ran out).
    func post(_ url: String, headers: HTTPHeaders, body: [UInt8]) async throws -> PushHTTPResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(body)
        let response = try await client.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: PushHTTPResponse.maximumBodyBytes)
        return PushHTTPResponse(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView))
    }

    /// Closes the connections; sends still in flight fail.
    func shutdown() async {
        try? await client.shutdown()
    }

    /// A transport dropped without ``shutdown()`` (its owner failed before it could call it) still
    /// closes its client; for one already shut down this does nothing.
    deinit {
        _ = client.shutdown()
    }
}
