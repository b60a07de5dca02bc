import Cloudlet
import CloudletServerTesting
import CloudletTesting

/// A member signed up through the REST API, as the iOS app holds one: the user's id and session token.
struct Colleague: Sendable {
    let id: String
    let sessionToken: String

    /// A `_User` pointer to this member.
    var pointer: ParseValue { .pointer(className: "_User", objectId: id) }

    /// The signup body of a member with a full profile: `username`, the password `secret-<username>`,
    /// names, title and email (the picture comes later: it is uploaded first).
    static func profile(_ username: String, firstName: String, lastName: String, title: String) -> [String: ParseValue] {
        [
            "username": .string(username), "password": .string("secret-\(username)"), "email": .string("\(username)@example.com"),
            "firstName": .string(firstName), "lastName": .string(lastName), "title": .string(title),
        ]
    }

    /// The Parse `File` value of an uploaded file, as `POST /files/:name` answered it.
    static func file(_ upload: ParseTestClient.Reply) -> ParseValue {
        ["__type": "File", "name": upload["name"] ?? .null, "url": upload["url"] ?? .null]
    }
}
