import Cloudlet
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The Parse REST API over the hosted apps: authentication, body limits, and one `perform` that
/// both the HTTP routes and `POST /batch` go through.
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

    /// The API for `apps`, mounted at `mountPath` (such as `/parse`), refusing bodies over
    /// `maximumBodyBytes` and believing `X-Forwarded-For` only from `trustedProxies`.
    public init(apps: AppDirectory, mountPath: String, maximumBodyBytes: Int, trustedProxies: TrustedProxies = .none) {
        self.apps = apps
        self.mountPath = mountPath
        self.maximumBodyBytes = maximumBodyBytes
        self.trustedProxies = trustedProxies
    }

    /// Answers one HTTP request for `route`, once the middleware has authenticated and limited it.
    func respond(to request: Request, context: CloudletRequestContext, route: ParseRoute) async throws -> Response {
        let endpoint = try route.endpoint(context.parameters)
        let call = try ParseCall(request: request, state: context.parse, logger: context.logger)
        switch (route.kind, endpoint) {
        case (.streamedBody, .file(let name)):
            return try await upload(name, request: request, context: context, call: call)
        case (.urlOnly, .fileDownload(_, let name)):
            return try await download(name, request: request, call: call)
        default:
            break
        }
        let reply = try await perform(endpoint, call)
        var headers = context.parse.rateLimit?.headers ?? [:]
        if let location = reply.location { headers[.location] = location }
        headers.append(contentsOf: reply.headers)
        guard let bytes = reply.encoded ?? JSONWriter.bytes(reply.body, limit: call.budget.maximumBytes) else {
            throw call.budget.exceeded
        }
        return JSONResponse.make(status: reply.status, bytes: bytes, headers: headers)
    }

    /// Runs one call on `endpoint`, with the method the call carries.
    func perform(_ endpoint: ParseEndpoint, _ call: ParseCall) async throws -> Reply {
        let runtime = call.app.runtime
        switch (endpoint, call.method) {
        case (.classes("_User"), .post):
            return try await performUsers(.users, call)
        case (.object("_User", let id), .put):
            return try await performUsers(.user(id), call)
        case (.classes(let className), .post):
            let saved = try await runtime.create(className, body: call.body, caller: call.caller)
            var body = saved.changedFields
            body["objectId"] = .string(saved.object.objectId!)
            body["createdAt"] = saved.object.createdAt.map { .string(ParseDate.string(from: $0)) }
            guard saved.isNew else {
                body["updatedAt"] = saved.object.updatedAt.map { .string(ParseDate.string(from: $0)) }
                return Reply(body: .object(body))
            }
            return Reply(status: .created, body: .object(body), location: "\(mountPath)/classes/\(className)/\(saved.object.objectId!)")
        case (.classes(let className), .get):
            let parameters = try QueryParameters(className: className, call.query.merging(call.body) { _, body in body })
            let (found, count) = try await runtime.search(parameters.query, counting: parameters.count, caller: call.caller, budget: call.budget)
            var body: [String: ParseValue] = ["results": .array(found.map { .object($0.json) })]
            if let count { body["count"] = .number(Double(count)) }
            return Reply(body: .object(body))
        case (.object(let className, let id), .get):
            let parameters = try QueryParameters(className: className, call.query.merging(call.body) { _, body in body })
            let object = try await runtime.get(
                className, id: id, caller: call.caller, include: parameters.query.include, keys: parameters.query.keys,
                budget: call.budget)
            return Reply(body: .object(object.json))
        case (.object(let className, let id), .put):
            let saved = try await runtime.update(className, id: id, body: call.body, caller: call.caller)
            var body = saved.changedFields
            body["updatedAt"] = saved.object.updatedAt.map { .string(ParseDate.string(from: $0)) }
            return Reply(body: .object(body))
        case (.object(let className, let id), .delete):
            try await runtime.delete(className, id: id, caller: call.caller)
            return Reply(body: [:])
        case (.function(let name), .post):
            try await call.app.rateLimiter.admit(
                call.rateLimited(path: "/functions/" + name), .hook(runtime.executor.rateLimitRules(ofFunction: name)))
            let result = try await runtime.callFunction(name, params: call.body, caller: call.caller)
            return Reply(body: ["result": result])
        case (.batch, .post):
            return Reply(body: .null, encoded: try await performBatch(call))
        case (.users, _), (.user, _), (.currentUser, _), (.login, _), (.logout, _):
            return try await performUsers(endpoint, call)
        case (.installations, _):
            return try await perform(.classes(InstallationRules.className), call)
        case (.installation(let id), _):
            return try await perform(.object(InstallationRules.className, id), call)
        case (.push, .post):
            return try await performPush(call)
        case (.file(let name), .delete):
            try await runtime.deleteFile(named: name, caller: call.caller)
            return Reply(body: [:])
        case (.job(let name), .post):
            return try await performJob(name, call)
        default:
            throw ParseError(code: 119, message: "\(call.method.rawValue) is not allowed here", httpStatus: 405)
        }
    }
}
