import Cloudlet
import CloudletWire

/// Serves a store call that a hook made inside a worker, through the store of the hook's invocation
/// (which acts as its caller, under its deadline and depth).
enum StoreCallServer {
    static func serve(_ call: WireStoreCall, store invocationStore: any HookStore) async throws -> ParseValue {
        let arguments = try ParseValue(json: call.arguments)
        let store = call.asMaster ? invocationStore.asMaster : invocationStore
        func string(_ key: String) throws -> String {
            guard let value = arguments[key]?.stringValue else { throw ParseError.invalidJSON("store call without \(key)") }
            return value
        }
        switch call.operation {
        case .get:
            return try await store.get(try string("className"), id: try string("id")).map { .object($0.json) } ?? .null
        case .find:
            return .array(try await store.find(try ParseQuery(json: arguments)).map { .object($0.json) })
        case .count:
            return .number(Double(try await store.count(try ParseQuery(json: arguments))))
        case .save:
            let object = ParseObject(className: try string("className"), json: arguments["object"]?.objectValue ?? [:])
            return .object(try await store.save(object).json)
        case .delete:
            try await store.delete(try string("className"), id: try string("id"))
            return .null
        case .call:
            return try await store.call(try string("name"), params: arguments["params"]?.objectValue ?? [:])
        case .config:
            return .object(try await store.config())
        case .progress:
            guard let reporter = store as? any JobProgressReporter else { throw ParseError.failed("only a job reports progress") }
            try await reporter.reportJobProgress(try string("message"))
            return .null
        }
    }
}
