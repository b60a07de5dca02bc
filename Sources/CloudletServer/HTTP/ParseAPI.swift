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
    }

    let apps: AppDirectory
    let mountPath: String
    let maximumBodyBytes: Int

    /// The API for `apps`, mounted at `mountPath` (such as `/parse`), refusing bodies over `maximumBodyBytes`.
    public init(apps: AppDirectory, mountPath: String, maximumBodyBytes: Int) {
        self.apps = apps
        self.mountPath = mountPath
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Answers one HTTP request for `endpoint`.
    func respond(to request: Request, context: CloudletRequestContext, endpoint: ParseEndpoint) async throws -> Response {
        var request = request
        let body = try await readBody(&request)
        var call = try ParseCall(
            request: request, body: body, requestId: context.id, address: context.remoteAddress?.ipAddress, apps: apps,
            logger: context.logger)
        try await call.resolveSession()
        let reply: Reply
        do {
            reply = try await perform(endpoint, call)
        } catch let error as ParseError {
            throw error
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            throw ParseError.internalError
        }
        var headers: HTTPFields = [:]
        if let location = reply.location { headers[.location] = location }
        guard let bytes = reply.encoded ?? JSONWriter.bytes(reply.body, limit: call.budget.maximumBytes) else {
            throw call.budget.exceeded
        }
        return JSONResponse.make(status: reply.status, bytes: bytes, headers: headers)
    }

    private func readBody(_ request: inout Request) async throws -> [String: ParseValue] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            throw ParseError(code: 116, message: "request body is larger than \(maximumBodyBytes) bytes", httpStatus: 413)
        }
        guard buffer.readableBytes > 0 else { return [:] }
        let value: ParseValue
        do {
            value = try buffer.withUnsafeReadableBytes { try JSONParser.parse($0) }
        } catch let failure as JSONParser.Failure {
            throw ParseError.invalidJSON("invalid JSON: \(failure.reason) at byte \(failure.offset)")
        }
        guard let members = value.objectValue else { throw ParseError.invalidJSON("the body must be a JSON object") }
        return members
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
            body["createdAt"] = saved.object.json["createdAt"]
            return Reply(status: .created, body: .object(body), location: "\(mountPath)/classes/\(className)/\(saved.object.objectId!)")
        case (.classes(let className), .get):
            let parameters = try QueryParameters(className: className, call.query.merging(call.body) { _, body in body })
            var body: [String: ParseValue] = [:]
            let found = try await runtime.find(parameters.query, caller: call.caller, budget: call.budget)
            body["results"] = .array(found.map { .object($0.json) })
            if parameters.count { body["count"] = .number(Double(try await runtime.count(parameters.query, caller: call.caller))) }
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
            body["updatedAt"] = saved.object.json["updatedAt"]
            return Reply(body: .object(body))
        case (.object(let className, let id), .delete):
            try await runtime.delete(className, id: id, caller: call.caller)
            return Reply(body: [:])
        case (.function(let name), .post):
            let result = try await runtime.callFunction(name, params: call.body, caller: call.caller)
            return Reply(body: ["result": result])
        case (.batch, .post):
            return Reply(body: .null, encoded: try await performBatch(call))
        case (.users, _), (.user, _), (.currentUser, _), (.login, _), (.logout, _):
            return try await performUsers(endpoint, call)
        default:
            throw ParseError(code: 119, message: "\(call.method.rawValue) is not allowed here", httpStatus: 405)
        }
    }
}
