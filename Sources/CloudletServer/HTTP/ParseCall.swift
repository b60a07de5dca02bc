import Cloudlet
import HTTPTypes
import Hummingbird

/// One authenticated Parse REST call as a route performs it: the app, who makes it, the method it
/// means, and its inputs. Built from what the middleware learnt (``ParseRequestState``).
struct ParseCall: Sendable {
    let app: HostedApp
    /// Who makes the call, with the session's user.
    let caller: Caller
    /// The session token the call came with, if any.
    let sessionToken: String?
    /// The client's address, for login throttling and rate limits.
    let address: String?
    /// The method the client meant (`_method` in the body overrides the HTTP method).
    private(set) var method: HTTPRequest.Method
    /// The JSON body, without the `_`-prefixed transport members.
    private(set) var body: [String: ParseValue]
    /// The URL's query parameters, as strings.
    private(set) var query: [String: ParseValue]

    init(request: Request, state: ParseRequestState) throws {
        app = try state.requireApp()
        caller = try state.requireCaller()
        sessionToken = state.sessionToken
        address = state.address
        method = state.method ?? request.method
        body = state.body ?? [:]
        var query: [String: ParseValue] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = .string(String(value)) }
        self.query = query
    }

    /// The call as made by the same client to another path (for `POST /batch`).
    func with(method: HTTPRequest.Method, body: [String: ParseValue], query: [String: ParseValue] = [:]) -> ParseCall {
        var call = self
        call.method = method
        call.body = body
        call.query = query
        return call
    }

    /// What the rate limiter needs to know of this call at `path` (below the mount path).
    func rateLimited(path: String) -> RateLimitedRequest {
        RateLimitedRequest(
            path: path, method: method.rawValue, address: address, userId: caller.userId, sessionTokenHash: caller.sessionTokenHash,
            isMaster: caller.isMaster)
    }
}
