import Cloudlet
import CloudletPostgres
import Hummingbird
import Logging

/// Gives every error a Parse `{code, error}` body: Hummingbird's own (404 for a path that matches
/// no route, a body it could not read) keep their status and get code 108 or 107; anything that
/// is not an HTTP error is a 500 with code 1, its details only in the log, or a 503 when the
/// database cannot be reached.
struct ParseErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ParseError {
            throw error
        } catch let error as RateLimitExceeded {
            throw error
        } catch let error as any HTTPResponseError {
            let notFound = error.status == .notFound
            throw ParseError(
                code: notFound ? 108 : 107, message: notFound ? "no such route" : error.status.reasonPhrase,
                httpStatus: error.status.code)
        } catch where PostgresDatabase.isUnreachable(error) {
            context.logger.error("request failed: the database cannot be reached", metadata: ["error": "\(String(reflecting: error))"])
            throw PostgresDatabase.unreachable
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw ParseError.internalError
        }
    }
}
