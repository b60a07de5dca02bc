import Hummingbird
import Logging
import NIOCore

/// Logs each request once it is answered: method, path, status, time taken, tagged with the request id.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: response.status.code, since: start)
            return response
        } catch let error as any HTTPResponseError {
            log(request, context, status: error.status.code, since: start)
            throw error
        } catch {
            log(request, context, status: 500, since: start)
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        context.logger.info(
            "\(request.method) \(request.uri.path) \(status)",
            metadata: ["status": "\(status)", "ms": "\((elapsed.seconds * 100_000).rounded() / 100)"])
    }
}
