import Cloudlet
import CloudletRuntime
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One authenticated Parse REST call as a route performs it: the app, who makes it, the method it
/// means, and its inputs. Built from what the middleware learnt (``ParseRequestContext``), or for
/// an operation of a batch from the batch's call.
struct ParseCall: Sendable {
    let app: HostedApp
    /// Who makes the call, with the session's user.
    let caller: Caller
    /// The session token the call came with, if any.
    let sessionToken: String?
    /// The client's address, for login throttling and rate limits.
    let address: String?
    /// The method the client meant (`_method` in the body overrides the HTTP method; a `HEAD` is a `GET`).
    private(set) var method: HTTPRequest.Method
    /// The JSON body, without the `_`-prefixed transport members.
    private(set) var body: [String: ParseValue]
    /// The URL's query parameters, as strings.
    private(set) var query: [String: ParseValue]
    /// The body's bytes as they came; nil for an operation of a batch.
    private var bodyBytes: ByteBuffer?
    /// Whether ``bodyBytes`` hold exactly ``body``'s members (no transport members were in them).
    private var bodyBytesAreBody: Bool
    /// The route's path parameters (`className` in `classes/:className`).
    private(set) var parameters: Parameters
    /// What the request may read and answer, shared by the operations of a batch.
    let budget: ReadBudget
    /// The request's logger.
    let logger: Logger

    init(request: Request, context: ParseRequestContext) {
        app = context.app
        caller = context.caller
        sessionToken = context.parse.sessionToken
        address = context.parse.address
        method = context.parse.servedMethod(of: request)
        body = context.parse.body ?? [:]
        bodyBytes = context.parse.bodyBytes
        bodyBytesAreBody = !context.parse.transport.mayHaveTaken
        query = Self.formDecoded(request.uri.query ?? "")
        parameters = context.parameters
        budget = app.runtime.context.newBudget()
        logger = context.logger
    }

    /// The path parameter `name`; 400 when the route has none of that name.
    func parameter(_ name: String) throws -> String {
        try parameters.require(name)
    }

    /// The members of a query string, decoded as HTML forms encode them (`+` is a space, as
    /// `curl --data-urlencode` sends it), each as a string.
    static func formDecoded(_ query: String) -> [String: ParseValue] {
        var members: [String: ParseValue] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            members[decoded(parts[0])] = .string(parts.count > 1 ? decoded(parts[1]) : "")
        }
        return members
    }

    /// The body's JSON as it came, when it holds exactly ``body``'s members; nil otherwise and for
    /// an operation of a batch.
    var bodyJSON: ByteBuffer? { bodyBytesAreBody ? bodyBytes : nil }

    /// The names of the members of the object at each of `paths` in the call's parameters (a path
    /// starts with a query parameter holding JSON, else with a member of the body), in the order
    /// the client wrote them; nil where that order is unknown (no such object, or an operation of
    /// a batch). Each parameter and the body are read once.
    func memberNames(at paths: [[JSONParser.PathStep]]) -> [[String]?] {
        var found = [[String]?](repeating: nil, count: paths.count)
        var bySource: [String?: [Int]] = [:]  // By query parameter, nil for the body.
        for (index, path) in paths.enumerated() {
            guard case .member(let name)? = path.first else { continue }
            bySource[query[name]?.stringValue == nil ? nil : name, default: []].append(index)
        }
        for (parameter, indices) in bySource {
            let names: [[String]?]?
            if let parameter, let text = query[parameter]?.stringValue {
                names = try? JSONParser.memberNames(in: Array(text.utf8), at: indices.map { Array(paths[$0].dropFirst()) })
            } else {
                names = try? bodyBytes?.withUnsafeReadableBytes { try JSONParser.memberNames(in: $0, at: indices.map { paths[$0] }) }
            }
            for (index, order) in zip(indices, names ?? []) { found[index] = order }
        }
        return found
    }

    /// The call as made by the same client to another route (for `POST /batch`).
    func with(
        method: HTTPRequest.Method, body: [String: ParseValue], query: [String: ParseValue], parameters: Parameters
    ) -> ParseCall {
        var call = self
        call.method = method
        call.body = body
        call.bodyBytes = nil
        call.query = query
        call.parameters = parameters
        return call
    }

    /// What the rate limiter needs to know of this call at `path` (below the mount path).
    func rateLimited(path: String) -> RateLimitedRequest {
        RateLimitedRequest(
            path: path, method: method.rawValue, address: address, userId: caller.userId, sessionTokenHash: caller.sessionTokenHash,
            isMaster: caller.isMaster)
    }
}

extension HTTPRequest.Method {
    /// The method a route serves this one as: a `HEAD` is its `GET` (whose body the router drops),
    /// for the rate-limit rules and the route alike.
    var served: HTTPRequest.Method { self == .head ? .get : self }
}

extension ParseRequestState {
    /// The method `request` is served as: the body's `_method` if it had one, else its own (a
    /// `HEAD` as its `GET`). The route's dispatch, the call and the rate-limit rules all read this.
    func servedMethod(of request: Request) -> HTTPRequest.Method { method ?? request.method.served }
}
