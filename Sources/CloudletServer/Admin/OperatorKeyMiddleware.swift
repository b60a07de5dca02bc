import Hummingbird

/// Lets a request through only with the operator key, as ``OperatorKeyGuard`` checks it: 401
/// (code 119) without it, 429 (code 155) for an address past its wrong keys. It guards every
/// route of the admin API, the hook logs and `/metrics`, which never check the key themselves.
struct OperatorKeyMiddleware: RouterMiddleware {
    typealias Context = CloudletRequestContext
    let operatorKey: OperatorKeyGuard

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try operatorKey.authorize(request, context: context)
        return try await next(request, context)
    }
}
