import Cloudlet

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
