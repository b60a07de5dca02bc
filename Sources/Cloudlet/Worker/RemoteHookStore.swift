import CloudletWire

/// The store a hook sees inside a worker: each call travels to the host on the worker's connection,
/// where it runs with the invocation's caller, deadline and depth.
struct RemoteHookStore: HookStore, JobProgressReporter {
    let session: WorkerSession
    let invocationId: UInt64
    let isMaster: Bool

    func get(_ className: String, id: String) async throws -> ParseObject? {
        let value = try await call(.get, ["className": .string(className), "id": .string(id)])
        return value.objectValue.map { ParseObject(className: className, json: $0) }
    }

    func find(_ query: ParseQuery) async throws -> [ParseObject] {
        let value = try await call(.find, query.json)
        return (value.arrayValue ?? []).compactMap { $0.objectValue.map { ParseObject(className: query.className, json: $0) } }
    }

    func count(_ query: ParseQuery) async throws -> Int {
        try await call(.count, query.json).intValue ?? 0
    }

    func save(_ object: ParseObject) async throws -> ParseObject {
        let value = try await call(.save, ["className": .string(object.className), "object": .object(object.json)])
        return ParseObject(className: object.className, json: value.objectValue ?? [:])
    }

    func delete(_ className: String, id: String) async throws {
        _ = try await call(.delete, ["className": .string(className), "id": .string(id)])
    }

    func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue {
        try await call(.call, ["name": .string(name), "params": .object(params)])
    }

    func config() async throws -> [String: ParseValue] {
        try await call(.config, [:]).objectValue ?? [:]
    }

    func reportJobProgress(_ message: String) async throws {
        _ = try await call(.progress, ["message": .string(message)])
    }

    var asMaster: any HookStore {
        RemoteHookStore(session: session, invocationId: invocationId, isMaster: true)
    }

    private func call(_ operation: WireStoreOperation, _ arguments: ParseValue) async throws -> ParseValue {
        try await session.storeCall(invocationId: invocationId, operation: operation, asMaster: isMaster, arguments: arguments).value()
    }
}
