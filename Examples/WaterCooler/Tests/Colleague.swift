import Cloudlet
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// A member signed up through the REST API, as the iOS app holds one: the user's id and session token.
struct Colleague: Sendable {
    let id: String
    let sessionToken: String

    /// A `_User` pointer to this member.
    var pointer: ParseValue { .pointer(className: "_User", objectId: id) }

    /// The signup body of a member with a full profile: `username`, the password `secret-<username>`,
    /// names, title, email and a profile picture.
    static func profile(_ username: String, firstName: String, lastName: String, title: String) -> [String: ParseValue] {
        [
            "username": .string(username), "password": .string("secret-\(username)"), "email": .string("\(username)@example.com"),
            "firstName": .string(firstName), "lastName": .string(lastName), "title": .string(title),
            "profilePicture": picture("\(username).jpg"),
        ]
    }

    /// A Parse `File` reference to an image named `name`.
    static func picture(_ name: String) -> ParseValue {
        ["__type": "File", "name": .string(name), "url": .string("https://files.example.com/\(name)")]
    }
}

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
        let reply = try await send(.get, path + Self.encoded(query), token: member?.sessionToken)
        #expect(reply.status == 200, "query \(path) failed: \(reply.body)")
        return reply["results"]?.arrayValue ?? []
    }

    /// `query` as a URL query string, structured values as JSON, as the Parse SDKs send them.
    private static func encoded(_ query: [String: ParseValue]) -> String {
        guard !query.isEmpty else { return "" }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let pairs = query.sorted { $0.key < $1.key }.map { key, value in
            let text = value.stringValue ?? JSONWriter.string(value)
            return key + "=" + (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text)
        }
        return "?" + pairs.joined(separator: "&")
    }
}
