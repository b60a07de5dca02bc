import AsyncHTTPClient
import Cloudlet
import CloudletRuntime
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// Checks Apple's and Google's identity tokens for every app of the host: the signature against the
/// provider's published keys (one ``SigningKeyCache`` per provider, shared by the apps), then the
/// claims against the provider's issuers and the app's audiences.
public final class IdentityTokenVerifier: IdentityTokenVerifying {
    /// The most bytes of a key set answer that are read.
    static let maximumKeySetBytes = 64 * 1024
    /// How long a fetch of a key set may take.
    static let fetchTimeout = TimeAmount.seconds(10)
    /// How long keys are kept when their answer gives no `max-age`, and the bounds on the lifetime one gives.
    static let defaultKeyLifetime: TimeInterval = 3600
    static let keyLifetimeBounds: ClosedRange<TimeInterval> = 60...86_400

    private let client: HTTPClient
    private let caches: [AuthProvider: SigningKeyCache]
    private let clock: any CloudletClock

    /// A verifier fetching keys from `endpoints`, judging times by `clock`, logging failed fetches to `logger`.
    public init(endpoints: IdentityProviderEndpoints, clock: any CloudletClock, logger: Logger) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = endpoints.trustRoots
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var caches: [AuthProvider: SigningKeyCache] = [:]
        for provider in AuthProvider.allCases {
            guard let url = endpoints.keysURL(of: provider) else { continue }
            caches[provider] = SigningKeyCache(
                clock: clock, download: { try await Self.download(url, with: client) },
                onFailure: { error in
                    logger.warning("identity provider keys not fetched", metadata: ["provider": "\(provider.rawValue)", "error": "\(error)"])
                })
        }
        self.client = client
        self.caches = caches
        self.clock = clock
    }

    public func verify(_ token: String, from provider: AuthProvider, subject: String, audiences: [String]) async throws {
        guard let cache = caches[provider] else { throw AuthData.unsupported }
        let token = try IdentityToken(token)
        guard let keyId = token.keyId, let key = await cache.key(keyId) else {
            throw IdentityToken.refused("Unable to find matching key for Key ID: \((token.keyId ?? "").prefix(128))")
        }
        guard key.isValid(token.signature, of: token.signingInput, algorithm: token.algorithm) else {
            throw IdentityToken.refused("invalid signature")
        }
        try token.checkClaims(
            issuers: IdentityProviderEndpoints.issuers(of: provider), audiences: audiences, subject: subject, now: clock.now)
    }

    /// The key set at `url` and its lifetime (`Cache-Control: max-age`, within bounds). Throws
    /// when it cannot be fetched, is not answered 200, or is not a key set.
    private static func download(_ url: String, with client: HTTPClient) async throws -> SigningKeyCache.Download {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: fetchTimeout)
        let body = try await response.body.collect(upTo: maximumKeySetBytes)
        guard response.status == .ok else { throw ParseError(code: 1, message: "\(url) answered HTTP \(response.status.code)") }
        guard let keys = (try? JSONParser.parse(Array(body.readableBytesView))).flatMap(SigningKey.keySet) else {
            throw ParseError(code: 1, message: "\(url) answered no JSON Web Key Set")
        }
        let maxAge = response.headers["cache-control"].lazy.flatMap { $0.split(separator: ",") }
            .compactMap { directive -> TimeInterval? in
                let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return parts.count == 2 && parts[0].lowercased() == "max-age" ? TimeInterval(parts[1]) : nil
            }.first
        let lifetime = min(max(maxAge ?? defaultKeyLifetime, keyLifetimeBounds.lowerBound), keyLifetimeBounds.upperBound)
        return SigningKeyCache.Download(keys: keys, lifetime: lifetime)
    }

    /// A verifier dropped closes its client.
    deinit {
        _ = client.shutdown()
    }
}
