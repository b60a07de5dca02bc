import Cloudlet
import CloudletTesting
import HTTPTypes
import Testing

extension ParseTestClient {
    static let sessionTokenHeader = HTTPField.Name("X-Parse-Session-Token")!

    /// Signs up a member with ``Colleague/profile(_:firstName:lastName:title:)``.
    func signUp(_ username: String, _ firstName: String, _ lastName: String, title: String = "Engineer") async throws -> Colleague {
        let reply = try await post("/users", Colleague.profile(username, firstName: firstName, lastName: lastName, title: title))
        #expect(reply.status == 201, "signup of \(username) failed: \(reply.body)")
        return Colleague(
            id: try #require(reply["objectId"]?.stringValue), sessionToken: try #require(reply["sessionToken"]?.stringValue))
    }

    /// Sends `method` to `path` with the client key and, if given, a session token — as the app does.
    func send(
        _ method: HTTPRequest.Method, _ path: String, _ body: [String: ParseValue]? = nil, token: String?
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let token { headers[Self.sessionTokenHeader] = token }
        return try await request(method, path, body: body.map(ParseValue.object), headers: headers)
    }

    /// Sends `method` to `path` as `member`.
    func send(_ method: HTTPRequest.Method, _ path: String, _ body: [String: ParseValue]? = nil, as member: Colleague) async throws -> Reply {
        try await send(method, path, body, token: member.sessionToken)
    }

    /// A `GET` of `path` with query parameters, as `member`.
    func find(_ path: String, _ query: [String: ParseValue] = [:], as member: Colleague?) async throws -> [ParseValue] {
        let reply = try await get(path, query: query, sessionToken: member?.sessionToken)
        #expect(reply.status == 200, "query \(path) failed: \(reply.body)")
        return reply["results"]?.arrayValue ?? []
    }
}
