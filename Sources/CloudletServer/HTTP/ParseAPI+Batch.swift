import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// The most operations one `POST /batch` may carry, as in Parse.
    static let maximumBatchSize = 50

    /// One operation of a batch, matched to its route: the call it makes and the handler that answers it.
    struct BatchOperation: Sendable {
        /// The path below the mount path, for the rate limits.
        let path: String
        let call: ParseCall
        let route: ParseRoute
        let handler: @Sendable (ParseAPI, ParseCall) async throws -> Reply
    }

    /// Runs the operations of a batch as the same caller and answers the JSON array of their
    /// outcomes: `{"success": …}` or `{"error": {"code": …, "error": …}}`. With `"transaction":
    /// true` they run as one transaction (``performTransaction(_:_:)``). Without it, each runs in
    /// order, and one failing — even inside the server, or past the response budget — answers an
    /// error in its own entry and does not stop the rest, so the writes that committed are always
    /// reported. Each operation counts against the app's rate limits as a request of its own.
    func performBatch(_ call: ParseCall) async throws -> [UInt8] {
        guard let requests = call.body["requests"]?.arrayValue else {
            throw ParseError.invalidJSON("batch needs a requests array")
        }
        guard requests.count <= Self.maximumBatchSize else {
            throw ParseError.invalidJSON("a batch may hold at most \(Self.maximumBatchSize) operations")
        }
        if call.body["transaction"] == .bool(true) { return try await performTransaction(requests, call) }
        var outcomes: [Result<ParseValue, any Error>] = []
        for operation in requests {
            do {
                outcomes.append(.success(try await perform(try batchOperation(operation, call)).body))
            } catch {
                outcomes.append(.failure(error))
            }
        }
        return batchEntries(outcomes, call)
    }

    /// The JSON array of a batch's outcomes, each entry within what is left of the call's budget
    /// (an entry past it answers the budget's error instead).
    func batchEntries(_ outcomes: [Result<ParseValue, any Error>], _ call: ParseCall) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "[")]
        for (index, outcome) in outcomes.enumerated() {
            let entry: ParseValue
            switch outcome {
            case .success(let body):
                entry = ["success": body]
            case .failure(let error as ParseError):
                entry = ["error": error.body]
            case .failure(let refusal as RateLimitExceeded):
                entry = ["error": refusal.parseError.body]
            case .failure(let error):
                call.logger.error("batch operation failed", metadata: ["error": "\(String(reflecting: error))", "operation": "\(index)"])
                entry = ["error": ParseError.internalError.body]
            }
            if index > 0 { output.append(UInt8(ascii: ",")) }
            let room = call.budget.maximumBytes - output.count - 1
            output += JSONWriter.bytes(entry, limit: room) ?? JSONWriter.bytes(["error": call.budget.exceeded.body])
        }
        output.append(UInt8(ascii: "]"))
        return output
    }

    /// The route one operation of a batch names with its method and path, if a batch may call it.
    /// As in Parse, a path outside the mount path, a method and path no such route answers, and a
    /// nested batch are 107.
    func batchOperation(_ operation: ParseValue, _ call: ParseCall) throws -> BatchOperation {
        guard let methodName = operation["method"]?.stringValue, let method = HTTPRequest.Method(methodName.uppercased()),
            let requestPath = operation["path"]?.stringValue
        else { throw ParseError.invalidJSON("each batch operation needs a method and a path") }
        let path = table.pathBelowMount(requestPath)
        guard path.first == "/" else { throw ParseError.invalidJSON("cannot route batch path \(requestPath)") }
        let match = table.match(path)
        if match?.path.pattern == ParseRoute.batchPath { throw ParseError.invalidJSON("nested batch requests are not allowed") }
        guard let (found, parameters) = match, let route = found.routes[method], route.isBatchable, case .reply(let handler) = route.handler
        else { throw ParseError.invalidJSON("cannot route \(method.rawValue) \(path)") }
        let query = requestPath.firstIndex(of: "?").map { ParseCall.formDecoded(String(requestPath[$0...].dropFirst())) } ?? [:]
        let operationCall = call.with(method: method, body: operation["body"]?.objectValue ?? [:], query: query, parameters: parameters)
        return BatchOperation(path: String(path), call: operationCall, route: route, handler: handler)
    }

    /// Runs one operation of a batch, after the app's rate limits for its path.
    func perform(_ operation: BatchOperation) async throws -> Reply {
        try await operation.call.app.rateLimiter.admit(operation.call.rateLimited(path: operation.path), .all)
        return try await operation.handler(self, operation.call)
    }
}
