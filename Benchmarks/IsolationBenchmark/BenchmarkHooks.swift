import Cloudlet

/// The hooks measured: a no-op `beforeSave` on `Noop`, and a `beforeSave` + `afterSave` pair on `Pair`.
enum BenchmarkHooks: HookModule {
    static func register(_ hooks: inout HookRegistry) {
        hooks.beforeSave("Noop") { _ in }
        hooks.beforeSave("Pair") { request in
            request.object["checked"] = true
        }
        hooks.afterSave("Pair") { _ in }
    }
}

/// The store of the contexts built for direct executor calls; the measured hooks never use it.
struct UnusedStore: HookStore {
    func get(_ className: String, id: String) async throws -> ParseObject? { throw HookError.internalError }
    func find(_ query: ParseQuery) async throws -> [ParseObject] { throw HookError.internalError }
    func count(_ query: ParseQuery) async throws -> Int { throw HookError.internalError }
    func save(_ object: ParseObject) async throws -> ParseObject { throw HookError.internalError }
    func delete(_ className: String, id: String) async throws { throw HookError.internalError }
    func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue { throw HookError.internalError }
    var asMaster: any HookStore { self }
}
