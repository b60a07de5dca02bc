import AsyncHTTPClient
import Cloudlet
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// The HTTP client of one push provider: `HTTPClient`s whose connections speak HTTP/2 when the
/// server offers it (APNs and FCM do), so that the sends to a host share one connection per client
/// up to the server's stream limit, the clients taking sends in turn. Trusts the system's roots
/// unless given others.
final class PushHTTPTransport: Sendable {
    private let clients: [HTTPClient]
    private let nextClient = Atomic<Int>(0)
    private let timeout: TimeAmount

    /// `connections` clients (at least one) trusting `trustRoots` (the system's by default), waiting
    /// at most `timeout` for an answer: well under the delivery service's 30 s claim, so that a send
    /// ends (sent, or to be retried) before its delivery can be claimed again.
    init(trustRoots: NIOSSLTrustRoots = .default, connections: Int = 1, timeout: TimeAmount = .seconds(10)) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = trustRoots
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.connectionPool.idleTimeout = .minutes(5)
        clients = (0..<max(connections, 1)).map { _ in
            HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        }
        self.timeout = timeout
    }

    /// POSTs `body` to `url` with `headers`. Throws when no answer came (the connection failed or
    /// the time ran out).
    func post(_ url: String, headers: HTTPHeaders, body: [UInt8]) async throws -> PushHTTPResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers = headers
        request.body = .bytes(body)
        let turn = nextClient.add(1, ordering: .relaxed).oldValue
        let response = try await clients[turn % clients.count].execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: PushHTTPResponse.maximumBodyBytes)
        return PushHTTPResponse(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView))
    }

    /// Closes the connections; sends still in flight fail.
    func shutdown() async {
        for client in clients { try? await client.shutdown() }
    }

    /// A transport dropped without ``shutdown()`` (its owner failed before it could call it) still
    /// closes its clients; for one already shut down this does nothing.
    deinit {
        for client in clients { _ = client.shutdown() }
    }
}
