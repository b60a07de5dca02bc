import Cloudlet
import CloudletRuntime

extension ParseAPI {
    /// `GET /schemas` with the master key: `{"results": [{className, fields, classLevelPermissions, indexes}, …]}`.
    func listSchemas(_ call: ParseCall) async throws -> Reply {
        Reply(body: ["results": .array(try await call.app.runtime.schemas.all(caller: call.caller, budget: call.budget))])
    }

    /// `GET /schemas/:className` with the master key: the class's schema (103 if it does not exist).
    func getSchema(_ call: ParseCall) async throws -> Reply {
        Reply(body: try await call.app.runtime.schemas.get(try call.parameter("className"), caller: call.caller))
    }

    /// `POST /schemas` (the class named by the body's `className`) or `POST /schemas/:className`
    /// with the master key: creates the class and answers its schema.
    func createSchema(_ call: ParseCall) async throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        let named = try? call.parameter("className")
        let bodyName = call.body["className"]?.stringValue
        if let named, let bodyName, named != bodyName {
            throw ParseError(code: 103, message: "Class name mismatch between \(bodyName) and \(named).")
        }
        guard let className = named ?? bodyName else { throw ParseError(code: 135, message: "POST /schemas needs a class name.") }
        return Reply(body: try await call.app.runtime.schemas.create(className, body: call.body, caller: call.caller))
    }

    /// `PUT /schemas/:className` with the master key: changes fields, CLPs and indexes; answers the schema.
    func updateSchema(_ call: ParseCall) async throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        let className = try call.parameter("className")
        if let bodyName = call.body["className"]?.stringValue, bodyName != className {
            throw ParseError(code: 103, message: "Class name mismatch between \(bodyName) and \(className).")
        }
        return Reply(body: try await call.app.runtime.schemas.update(className, body: call.body, caller: call.caller))
    }

    /// `DELETE /schemas/:className` with the master key: drops an empty class (255 if it holds objects); `{}`.
    func deleteSchema(_ call: ParseCall) async throws -> Reply {
        try await call.app.runtime.schemas.delete(try call.parameter("className"), caller: call.caller)
        return Reply(body: [:])
    }

    /// `DELETE /purge/:className` with the master key: deletes every object of the class, keeping its schema; `{}`.
    func purgeClass(_ call: ParseCall) async throws -> Reply {
        try await call.app.runtime.schemas.purge(try call.parameter("className"), caller: call.caller)
        return Reply(body: [:])
    }
}
