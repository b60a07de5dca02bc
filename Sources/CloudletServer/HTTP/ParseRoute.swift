import Cloudlet
import Hummingbird

/// One route of the Parse REST API: a method, a path below the mount path, how its request is
/// read (``Kind``), and the handler that answers it. ``ParseAPI/routes`` lists them all; the HTTP
/// router, `POST /batch`, the metrics labels and the rate-limit paths all find a request's route
/// there, through ``ParseRouteTable``.
///
/// ```swift
/// ParseRoute(.get, "roles/:objectId") { api, call in try await api.getObject("_Role", call) }
/// ```
struct ParseRoute: Sendable {
    /// How a route's request is read, which decides the middleware it passes.
    enum Kind: Sendable, CaseIterable {
        /// Keys in the headers or the JSON body; the body is read whole (up to the largest body
        /// the server takes) and parsed before the route runs.
        case json
        /// Keys in the headers (or the JavaScript SDK's JSON body form); the body is not read by the
        /// middleware but streamed by the route (file uploads).
        case streamedBody
        /// No keys: the URL names the app (file downloads). No body is read.
        case urlOnly
    }

    /// What answers a matched request.
    enum Handler: Sendable {
        /// Answers a JSON reply from the call alone; such a route (but `POST /batch` itself) can
        /// also be one operation of a batch.
        case reply(@Sendable (ParseAPI, ParseCall) async throws -> ParseAPI.Reply)
        /// Answers the HTTP response from the request itself (its streamed body, its range).
        case response(@Sendable (ParseAPI, Request, ParseRequestContext) async throws -> Response)
    }

    let method: HTTPRequest.Method
    /// The path below the mount path, with `:name` for a parameter: `classes/:className`.
    let path: String
    let kind: Kind
    let handler: Handler
    /// Whether `POST /batch` may call it, when it answers a reply (not files, as in Parse).
    private let isInBatches: Bool

    /// A route answering `method` on `path` with a JSON reply; `inBatches: false` keeps it out of
    /// `POST /batch`.
    init(
        _ method: HTTPRequest.Method, _ path: String, inBatches: Bool = true,
        _ reply: @escaping @Sendable (ParseAPI, ParseCall) async throws -> ParseAPI.Reply
    ) {
        self.init(method, path, kind: .json, handler: .reply(reply), inBatches: inBatches)
    }

    /// A route of `kind` answering `method` on `path` with `handler`.
    init(_ method: HTTPRequest.Method, _ path: String, kind: Kind, handler: Handler, inBatches: Bool = false) {
        self.method = method
        self.path = path
        self.kind = kind
        self.handler = handler
        isInBatches = inBatches
    }

    /// The path `POST /batch` answers at: a batch holds no batch.
    static let batchPath = "batch"

    /// Whether an operation of `POST /batch` may call this route: a JSON route answering a reply,
    /// not kept out of batches.
    var isBatchable: Bool {
        guard isInBatches, kind == .json, path != Self.batchPath, case .reply = handler else { return false }
        return true
    }

    /// The paths of the routes a transactional batch may call: those of objects of every class
    /// (users, installations and roles by their own paths too), and push, whose job is a
    /// `_PushStatus` object. Their writes join its transaction; the effects of the others (a
    /// function's store calls, a login's session, a job run, the config) are not writes it holds.
    static let transactionalPaths: Set<String> = [
        "classes/:className", "classes/:className/:objectId", "users", "users/me", "users/:objectId", "installations",
        "installations/:objectId", "roles", "roles/:objectId", "push",
    ]

    /// Whether an operation of a transactional `POST /batch` may call this route.
    var isTransactional: Bool {
        isBatchable && Self.transactionalPaths.contains(path)
    }
}
