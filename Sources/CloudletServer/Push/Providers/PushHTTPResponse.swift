import Cloudlet
import Foundation
import NIOHTTP1

/// What a push provider's server answered, its body read up to ``maximumBodyBytes``.
struct PushHTTPResponse: Sendable {
    /// The most of an answer's body that is read: error bodies are small JSON objects.
    static let maximumBodyBytes = 64 * 1024

    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    /// The body as a JSON object, if it is one.
    var jsonObject: [String: ParseValue]? { (try? JSONParser.parse(body))?.objectValue }

    /// `Retry-After` in seconds (the form APNs, FCM and most gateways send), if the server sent it.
    var retryAfter: Duration? {
        guard let value = headers.first(name: "retry-after"), let seconds = Int(value.trimmingCharacters(in: .whitespaces)),
            seconds >= 0
        else { return nil }
        return .seconds(seconds)
    }
}
