import Cloudlet
import HTTPTypes

extension ParseAPI {
    /// The most operations one `POST /batch` may carry, as in Parse.
    static let maximumBatchSize = 50

    /// Runs each operation of a batch in order, as the same caller; each answers
    /// `{"success": …}` or `{"error": {"code": …, "error": …}}`, and one failing does not stop the rest.
    /// Each operation counts against the app's rate limits as a request of its own.
    func performBatch(_ call: ParseCall) async throws -> [ParseValue] {
        guard let requests = call.body["requests"]?.arrayValue else {
            throw ParseError.invalidJSON("batch needs a requests array")
        }
        guard requests.count <= Self.maximumBatchSize else {
            throw ParseError.invalidJSON("a batch may hold at most \(Self.maximumBatchSize) operations")
        }
        var replies: [ParseValue] = []
        for operation in requests {
            do {
                guard let methodName = operation["method"]?.stringValue, let method = HTTPRequest.Method(methodName.uppercased()),
                    let path = operation["path"]?.stringValue, let endpoint = ParseEndpoint(path: path, mountPath: mountPath),
                    endpoint != .batch
                else { throw ParseError.invalidJSON("each batch operation needs a method and a path") }
                let body = operation["body"]?.objectValue ?? [:]
                let operationCall = call.with(method: method, body: body)
                try await call.app.rateLimiter.admit(operationCall.rateLimited(path: endpoint.path), .all)
                let reply = try await perform(endpoint, operationCall)
                replies.append(["success": reply.body])
            } catch let error as ParseError {
                replies.append(["error": error.body])
            } catch let refusal as RateLimitExceeded {
                replies.append(["error": refusal.parseError.body])
            }
        }
        return replies
    }
}
