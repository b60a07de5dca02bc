import Cloudlet
import CloudletServerTesting
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

    /// Uploads `bytes` as `member`'s profile picture `name` and sets it on their profile, as the app
    /// does; answers the upload's reply (the stored name and URL).
    @discardableResult
    func setProfilePicture(_ name: String, _ bytes: [UInt8], of member: Colleague) async throws -> Reply {
        let upload = try await upload(name, bytes, contentType: "image/jpeg", sessionToken: member.sessionToken)
        #expect(upload.status == 201, "upload of \(name) failed: \(upload.body)")
        let update = try await send(.put, "/users/\(member.id)", ["profilePicture": Colleague.file(upload)], as: member)
        #expect(update.status == 200, "setting \(name) failed: \(update.body)")
        return upload
    }

    /// A `GET` of `path` with query parameters, as `member`.
    func find(_ path: String, _ query: [String: ParseValue] = [:], as member: Colleague?) async throws -> [ParseValue] {
        let reply = try await get(path, query: query, sessionToken: member?.sessionToken)
        #expect(reply.status == 200, "query \(path) failed: \(reply.body)")
        return reply["results"]?.arrayValue ?? []
    }
}
