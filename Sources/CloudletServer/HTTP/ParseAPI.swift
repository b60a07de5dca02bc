import Cloudlet
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The Parse REST API over the hosted apps: authentication, body limits, and the route table
/// (``routes``) that both the HTTP router and `POST /batch` dispatch through.
public struct ParseAPI: Sendable {
    /// What one call answers: a status and a JSON body, or (for a batch) the body already encoded.
    struct Reply: Sendable {
        var status: HTTPResponse.Status = .ok
        var body: ParseValue
        var location: String?
        var encoded: [UInt8]?
        /// Headers of its own, such as `X-Parse-Push-Status-Id`.
        var headers: HTTPFields = [:]
    }

    let apps: AppDirectory
    let mountPath: String
    let maximumBodyBytes: Int
    let trustedProxies: TrustedProxies
    /// The routes below the mount path, as requests and batch operations find them.
    let table: ParseRouteTable

    /// The API for `apps`, mounted at `mountPath` (such as `/parse`), refusing bodies over
    /// `maximumBodyBytes` and believing `X-Forwarded-For` only from `trustedProxies`.
    public init(apps: AppDirectory, mountPath: String, maximumBodyBytes: Int, trustedProxies: TrustedProxies = .none) {
        self.apps = apps
        self.mountPath = mountPath
        self.maximumBodyBytes = maximumBodyBytes
        self.trustedProxies = trustedProxies
        table = ParseRouteTable(routes: Self.routes, mountPath: mountPath)
    }

    /// Answers one HTTP request to the routes at `path` once the middleware has authenticated and
    /// limited it: the route answering the method the request means (`_method` in a JSON body may
    /// say another than the HTTP method), or 405.
    func respond(to request: Request, context: ParseRequestContext, at path: ParseRouteTable.Path) async throws -> Response {
        let method = context.parse.servedMethod(of: request)
        guard let route = path.routes[method] else { throw ParseRouteTable.notAllowed(method) }
        switch route.handler {
        case .response(let handler):
            return try await handler(self, request, context)
        case .reply(let handler):
            let call = ParseCall(request: request, context: context)
            let reply = try await handler(self, call)
            var headers = context.parse.rateLimit?.headers ?? [:]
            if let location = reply.location { headers[.location] = location }
            headers.append(contentsOf: reply.headers)
            guard let bytes = reply.encoded ?? JSONWriter.bytes(reply.body, limit: call.budget.maximumBytes) else {
                throw call.budget.exceeded
            }
            return JSONResponse.make(status: reply.status, bytes: bytes, headers: headers)
        }
    }
}
