import Cloudlet
import HTTPTypes

extension ParseAPI {
    /// The most operations one `POST /batch` may carry, as in Parse.
    static let maximumBatchSize = 50

    /// Runs each operation of a batch in order, as the same caller, and answers the JSON array of
    /// their outcomes: `{"success": …}` or `{"error": {"code": …, "error": …}}`. One failing — even
    /// inside the server, or past the response budget — answers an error in its own entry and
    /// does not stop the rest, so the writes that committed are always reported. Each operation counts
    /// against the app's rate limits as a request of its own.
    func performBatch(_ call: ParseCall) async throws -> [UInt8] {
        guard let requests = call.body["requests"]?.arrayValue else {
            throw ParseError.invalidJSON("batch needs a requests array")
        }
        guard requests.count <= Self.maximumBatchSize else {
            throw ParseError.invalidJSON("a batch may hold at most \(Self.maximumBatchSize) operations")
        }
        var output: [UInt8] = [UInt8(ascii: "[")]
        for (index, operation) in requests.enumerated() {
            let entry: ParseValue
            do {
                entry = ["success": try await performOperation(operation, call).body]
            } catch let error as ParseError {
                entry = ["error": error.body]
            } catch let refusal as RateLimitExceeded {
                entry = ["error": refusal.parseError.body]
            } catch {
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

    /// Runs one operation through the route table, after the app's rate limits for its path: the
    /// route its method and path name, if a batch may call it. As in Parse, a path outside the
    /// mount path, a method and path no such route answers, and a nested batch are 107.
    private func performOperation(_ operation: ParseValue, _ call: ParseCall) async throws -> Reply {
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
        try await call.app.rateLimiter.admit(operationCall.rateLimited(path: String(path)), .all)
        return try await handler(self, operationCall)
    }
}
