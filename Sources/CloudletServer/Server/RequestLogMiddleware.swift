import CloudletRuntime
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Logs and counts each request once it is answered: a log line with method, path, status and
/// time taken; `cloudlet_http_requests_total` and `cloudlet_http_request_duration_seconds` by app,
/// route pattern and status; `cloudlet_rate_limited_total` when the app's limits refused it.
/// While the request is served, ``RequestIdentity/requestId`` holds its id, so that every line
/// logged for it carries `request_id`.
///
/// Labels stay bounded whatever a client sends: the app is the `X-Parse-Application-Id` (or, for a
/// file's URL, the app in its path) only when it names a hosted app (else empty), and the route is
/// the pattern that matched (`NotFound` if none).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext
    let apps: AppDirectory
    let metrics: CloudletMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        return try await RequestIdentity.$requestId.withValue(context.requestId) {
            do {
                let response = try await next(request, context)
                record(request, context, status: response.status.code, since: start)
                return response
            } catch let error as RateLimitExceeded {
                metrics.rateLimited(app: app(of: request, context))
                record(request, context, status: error.status.code, since: start)
                throw error
            } catch let error as any HTTPResponseError {
                record(request, context, status: error.status.code, since: start)
                throw error
            } catch {
                record(request, context, status: 500, since: start)
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
                throw error
            }
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        Self.record(
            request.method, request.uri.path, app: app(of: request, context), route: context.endpointPath ?? "NotFound", status: status,
            duration: ContinuousClock.now - start, metrics: metrics, logger: context.logger)
    }

    /// Counts one answered request and logs its line: method, path (without its query), status
    /// and the time it took. ``QuotaRefusalHandler`` records its refusals through it too.
    static func record(
        _ method: HTTPRequest.Method, _ path: some StringProtocol, app: String, route: String, status: Int, duration: Duration,
        metrics: CloudletMetrics, logger: Logger
    ) {
        metrics.requestAnswered(app: app, route: route, status: status, duration: duration)
        logger.info("\(method) \(path) \(status)", metadata: ["status": "\(status)", "ms": "\((duration.seconds * 100_000).rounded() / 100)"])
    }

    /// The hosted app the request names, or "" if it names none.
    private func app(of request: Request, _ context: Context) -> String {
        let fromURL = context.endpointPath?.hasSuffix("/files/{id}/{name}") == true ? context.parameters.get("id") : nil
        guard let id = ParseRequestHeaders(request.headers).applicationId ?? fromURL, apps.app(id) != nil else { return "" }
        return id
    }
}
