import Cloudlet
import HTTPTypes
import NIOCore

/// What the Parse middleware learn about one request besides its app and caller, in the order
/// they run: the client's address (``AppMiddleware``), the body (read by ``AppMiddleware`` or
/// ``KeyMiddleware`` when it carries the app or the keys, else by ``BodyMiddleware``) and the
/// method it means, the session (``SessionMiddleware``) and the rate limits
/// (``RateLimitMiddleware``). The route reads it as a ``ParseCall``.
public struct ParseRequestState: Sendable {
    /// The header fields the middleware read, found by ``AppMiddleware``.
    var headers = ParseRequestHeaders()
    /// The client's address: the socket's peer, or `X-Forwarded-For` from a trusted proxy.
    var address: String?
    /// The JSON body without its transport members, once read.
    var body: [String: ParseValue]?
    /// The body's bytes as they came, for the rare route that reads an object's member order
    /// (``ParseCall/memberNames(at:)``); the same storage the body was read into, not a copy.
    var bodyBytes: ByteBuffer?
    /// The JavaScript SDK's transport members, taken out of the body.
    var transport = TransportFields()
    /// The method the request means: `_method` in the body overrides the HTTP method.
    var method: HTTPRequest.Method?
    /// The session token the request came with.
    var sessionToken: String?
    /// The tightest rate limit's header fields, for the response.
    var rateLimit: RateLimitOutcome?

    /// Keeps the tighter of the current and `outcome`'s limits for the response's header fields.
    mutating func note(_ outcome: RateLimitOutcome) {
        guard !outcome.headers.isEmpty else { return }
        if let current = rateLimit, current.remaining <= outcome.remaining { return }
        rateLimit = outcome
    }
}

/// The members the JavaScript SDK sends in the body instead of headers.
struct TransportFields: Sendable {
    var applicationId: String?
    var clientKey: String?
    var masterKey: String?
    var sessionToken: String?
    var installationId: String?
    var method: String?
    /// `_ContentType`: the content type of a file uploaded in the JSON form.
    var contentType: String?
    /// Whether the body had members whose names begin with `_` (the body's bytes then hold more
    /// than its members).
    private(set) var mayHaveTaken = false

    /// Takes the transport members out of `body`.
    init(taking body: inout [String: ParseValue]) {
        // Most bodies have none: one look at each key's first byte spares them nine lookups.
        guard body.keys.contains(where: { $0.utf8.first == UInt8(ascii: "_") }) else { return }
        mayHaveTaken = true
        func take(_ key: String) -> String? { body.removeValue(forKey: key)?.stringValue }
        applicationId = take("_ApplicationId")
        clientKey = take("_JavaScriptKey") ?? take("_ClientKey")
        masterKey = take("_MasterKey")
        sessionToken = take("_SessionToken")
        installationId = take("_InstallationId")
        method = take("_method")
        contentType = take("_ContentType")
        for key in ["_RevocableSession", "_ClientVersion"] { body.removeValue(forKey: key) }
    }

    init() {}
}
