import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// `POST /classes/:className`: creates an object and answers 201 with its id, its creation
    /// time and the fields the server set, with its URL in `Location` (200 when an installation's
    /// create updated the stored one). A user is created by signing up; `_Session` objects are
    /// served by the sessions' handlers here and below (``SystemClass/Saves/sessions``).
    func createObject(_ className: String, _ call: ParseCall) async throws -> Reply {
        switch SystemClass.named(className)?.saves {
        case .accounts: return try await signUp(call)
        case .sessions: return try await createSession(call)
        default: break
        }
        let saved = try await call.app.runtime.writes.create(className, body: call.body, json: call.bodyJSON, caller: call.caller)
        var body = saved.changedFields
        body["objectId"] = .string(saved.object.objectId!)
        body["createdAt"] = saved.object.createdAt.map { .string(ParseDate.string(from: $0)) }
        guard saved.isNew else {
            body["updatedAt"] = saved.object.updatedAt.map { .string(ParseDate.string(from: $0)) }
            return Reply(body: .object(body))
        }
        return Reply(status: .created, body: .object(body), location: "\(mountPath)/classes/\(className)/\(saved.object.objectId!)")
    }

    /// `GET /classes/:className`: the objects a query (in the URL or the body) finds, and their
    /// count when asked.
    func findObjects(_ className: String, _ call: ParseCall) async throws -> Reply {
        if SystemClass.named(className)?.saves == .sessions { return try await findSessions(call) }
        let parameters = try QueryParameters(className: className, call.query.merging(call.body) { _, body in body })
        let (found, count) = try await call.app.runtime.reads.search(
            parameters.query, counting: parameters.count, caller: call.caller, budget: call.budget)
        var body: [String: ParseValue] = ["results": .array(found.map { .object($0.json) })]
        if let count { body["count"] = .number(Double(count)) }
        return Reply(body: .object(body))
    }

    /// `GET /classes/:className/:objectId`: one object, with `include`, `keys` and `excludeKeys` applied.
    func getObject(_ className: String, _ call: ParseCall) async throws -> Reply {
        if SystemClass.named(className)?.saves == .sessions { return try await getSession(call) }
        let parameters = try QueryParameters(className: className, call.query.merging(call.body) { _, body in body })
        let object = try await call.app.runtime.reads.get(
            className, id: try call.parameter("objectId"), caller: call.caller, include: parameters.query.include,
            keys: parameters.query.keys, excludeKeys: parameters.query.excludeKeys, budget: call.budget)
        return Reply(body: .object(object.json))
    }

    /// `PUT /classes/:className/:objectId`: applies the body's fields and operations, answering
    /// the update time and the fields the server set. A user's changes pass the accounts' rules.
    func updateObject(_ className: String, _ call: ParseCall) async throws -> Reply {
        if SystemClass.named(className)?.saves == .sessions { return try await updateSession(call) }
        let id = try call.parameter("objectId")
        let runtime = call.app.runtime
        let saved =
            SystemClass.named(className)?.saves == .accounts
            ? try await runtime.accounts.updateUser(id: id, body: call.body, caller: call.caller)
            : try await runtime.writes.update(className, id: id, body: call.body, caller: call.caller)
        var body = saved.changedFields
        body["updatedAt"] = saved.object.updatedAt.map { .string(ParseDate.string(from: $0)) }
        return Reply(body: .object(body))
    }

    /// `DELETE /classes/:className/:objectId`.
    func deleteObject(_ className: String, _ call: ParseCall) async throws -> Reply {
        if SystemClass.named(className)?.saves == .sessions { return try await deleteSession(call) }
        try await call.app.runtime.writes.delete(className, id: try call.parameter("objectId"), caller: call.caller)
        return Reply(body: [:])
    }

    /// `POST /functions/:name`: runs the cloud function with the body as its parameters, after
    /// the function's own rate limit, answering `{"result": …}`.
    func callFunction(_ call: ParseCall) async throws -> Reply {
        let name = try call.parameter("name")
        let runtime = call.app.runtime
        try await call.app.rateLimiter.admit(
            call.rateLimited(path: "/functions/" + name), .hook(runtime.context.executor.rateLimitRules(ofFunction: name)))
        return Reply(body: ["result": try await runtime.functions.call(name, params: call.body, caller: call.caller)])
    }
}
