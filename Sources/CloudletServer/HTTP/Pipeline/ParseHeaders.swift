import HTTPTypes

/// The header fields read outside a Parse request's middleware.
enum ParseHeaders {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}

/// The header fields the Parse middleware read, found in one pass over a request's fields (a
/// lookup by name walks them all, and the middleware would make a dozen). A field that comes more
/// than once reads as its values joined by ", ", as `HTTPFields`' subscript reads it.
struct ParseRequestHeaders: Sendable {
    var applicationId: String?
    var masterKey: String?
    /// The client key: `X-Parse-REST-API-Key`, else `X-Parse-Client-Key`, else `X-Parse-Javascript-Key`.
    var clientKey: String? { restAPIKey ?? clientKeyField ?? javascriptKey }
    var sessionToken: String?
    var installationId: String?
    /// Each `X-Forwarded-For` field, in order.
    var forwardedFor: [String] = []
    /// `Content-Length`, if it is a number.
    var contentLength: Int? { contentLengthField.flatMap(Int.init) }

    private var restAPIKey: String?
    private var clientKeyField: String?
    private var javascriptKey: String?
    private var contentLengthField: String?

    init() {}

    init(_ fields: HTTPFields) {
        func add(_ value: String, to field: inout String?) {
            field = field.map { $0 + ", " + value } ?? value
        }
        for field in fields {
            // The length first, so that most fields are passed over without a comparison.
            let name = field.name.canonicalName
            switch (name.utf8.count, name) {
            case (22, "x-parse-application-id"): add(field.value, to: &applicationId)
            case (20, "x-parse-rest-api-key"): add(field.value, to: &restAPIKey)
            case (18, "x-parse-client-key"): add(field.value, to: &clientKeyField)
            case (22, "x-parse-javascript-key"): add(field.value, to: &javascriptKey)
            case (18, "x-parse-master-key"): add(field.value, to: &masterKey)
            case (21, "x-parse-session-token"): add(field.value, to: &sessionToken)
            case (23, "x-parse-installation-id"): add(field.value, to: &installationId)
            case (15, "x-forwarded-for"): forwardedFor.append(field.value)
            case (14, "content-length"): add(field.value, to: &contentLengthField)
            default: break
            }
        }
    }
}
