import Cloudlet

/// The store a hook sees: the app's runtime, acting as the hook's caller, with the hook's deadline
/// and depth carried into every call so that nested hooks get only the time that is left.
struct RuntimeHookStore: HookStore {
    let runtime: AppRuntime
    let caller: Caller

    func get(_ className: String, id: String) async throws -> ParseObject? {
        do {
            return try await runtime.get(className, id: id, caller: caller)
        } catch let error as ParseError where error.code == ParseError.objectNotFound().code {
            return nil
        }
    }

    func find(_ query: ParseQuery) async throws -> [ParseObject] {
        try await runtime.find(query, caller: caller)
    }

    func count(_ query: ParseQuery) async throws -> Int {
        try await runtime.count(query, caller: caller)
    }

    func save(_ object: ParseObject) async throws -> ParseObject {
        var body = object.fields
        if let acl = object.acl { body["ACL"] = acl.json }
        if let id = object.objectId {
            return try await runtime.update(object.className, id: id, body: body, caller: caller).object
        }
        return try await runtime.create(object.className, body: body, caller: caller).object
    }

    func delete(_ className: String, id: String) async throws {
        try await runtime.delete(className, id: id, caller: caller)
    }

    func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue {
        try await runtime.callFunction(name, params: params, caller: caller)
    }

    var asMaster: any HookStore {
        var master = caller
        master.isMaster = true
        return RuntimeHookStore(runtime: runtime, caller: master)
    }
}
