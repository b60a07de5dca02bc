import Cloudlet
import HTTPTypes
import Hummingbird

/// One authenticated Parse REST call: the app it is for, who makes it, and its inputs.
///
/// Keys and the session come from `X-Parse-*` headers or, as the JavaScript SDK sends them, from
/// `_ApplicationId`, `_JavaScriptKey`, `_MasterKey`, `_SessionToken` and `_method` in the JSON body.
struct ParseCall: Sendable {
    let app: HostedApp
    /// Who makes the call; ``resolveSession()`` fills in the user from the session token.
    private(set) var caller: Caller
    /// The session token the call came with, if any.
    let sessionToken: String?
    /// The client's address, for login throttling.
    let address: String?
    /// The method the client meant (`_method` in the body overrides the HTTP method).
    private(set) var method: HTTPRequest.Method
    /// The JSON body, without the `_`-prefixed transport members.
    private(set) var body: [String: ParseValue]
    /// The URL's query parameters, as strings.
    private(set) var query: [String: ParseValue]

    private static let clientKeyHeaders = ["X-Parse-REST-API-Key", "X-Parse-Client-Key", "X-Parse-Javascript-Key"]
        .compactMap { HTTPField.Name($0) }
    private static let applicationIdHeader = HTTPField.Name("X-Parse-Application-Id")!
    private static let masterKeyHeader = HTTPField.Name("X-Parse-Master-Key")!
    private static let sessionTokenHeader = HTTPField.Name("X-Parse-Session-Token")!
    private static let installationIdHeader = HTTPField.Name("X-Parse-Installation-Id")!

    init(request: Request, body: [String: ParseValue], requestId: String, address: String?, apps: AppDirectory) throws {
        var body = body
        func take(_ key: String) -> String? { body.removeValue(forKey: key)?.stringValue }
        let bodyAppId = take("_ApplicationId")
        let bodyClientKey = take("_JavaScriptKey") ?? take("_ClientKey")
        let bodyMasterKey = take("_MasterKey")
        let bodySession = take("_SessionToken")
        let bodyInstallation = take("_InstallationId")
        let methodOverride = take("_method")
        for key in ["_RevocableSession", "_ClientVersion", "_ContentType"] { body.removeValue(forKey: key) }

        let headers = request.headers
        guard let appId = headers[Self.applicationIdHeader] ?? bodyAppId, let app = apps.app(appId) else {
            throw ParseError(code: 119, message: "unauthorized: unknown application id", httpStatus: 403)
        }
        var isMaster = false
        if let masterKey = headers[Self.masterKeyHeader] ?? bodyMasterKey {
            guard app.keys.acceptsMasterKey(masterKey) else {
                throw ParseError(code: 119, message: "unauthorized: wrong master key", httpStatus: 403)
            }
            isMaster = true
        } else {
            let presented = Self.clientKeyHeaders.lazy.compactMap { headers[$0] }.first ?? bodyClientKey
            guard let presented, app.keys.acceptsClientKey(presented) else {
                throw ParseError(code: 119, message: "unauthorized: missing or wrong client key", httpStatus: 403)
            }
        }
        self.sessionToken = headers[Self.sessionTokenHeader] ?? bodySession
        self.address = address
        self.app = app
        self.caller = Caller(
            isMaster: isMaster, installationId: headers[Self.installationIdHeader] ?? bodyInstallation,
            requestId: requestId)
        self.method = methodOverride.map { HTTPRequest.Method($0.uppercased()) ?? request.method } ?? request.method
        self.body = body
        var query: [String: ParseValue] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = .string(String(value)) }
        self.query = query
    }

    /// Resolves the session token, if one came, to its user and roles; 209 if it is not valid.
    mutating func resolveSession() async throws {
        guard let sessionToken else { return }
        let isMaster = caller.isMaster
        caller = try await app.runtime.caller(
            sessionToken: sessionToken, installationId: caller.installationId, requestId: caller.requestId)
        caller.isMaster = isMaster
    }

    /// The call as made by the same client to another path (for `POST /batch`).
    func with(method: HTTPRequest.Method, body: [String: ParseValue], query: [String: ParseValue] = [:]) -> ParseCall {
        var call = self
        call.method = method
        call.body = body
        call.query = query
        return call
    }
}
