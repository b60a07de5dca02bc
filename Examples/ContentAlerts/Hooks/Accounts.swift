import Cloudlet
import Foundation

/// The rules of `Users`, the app's own accounts: each has a `username`, a `role` and a password
/// digest (`salt`, `passwordHash`). Only the master key creates, changes or reads them.
///
/// ```sh
/// curl … -H "X-Parse-Master-Key: …" -X POST …/classes/Users \
///      -d '{"username":"ada","password":"s3cret","role":"editor"}'
/// ```
enum Accounts {
    /// The class that holds the accounts.
    static let className = "Users"

    /// Checks an account, replaces a given `password` by its digest and makes the account
    /// readable by the master key only.
    @Sendable static func prepare(_ request: inout BeforeSaveRequest) async throws {
        guard request.isMaster else { throw HookError.unauthorized("only the master key manages users") }
        let username = try requiredText("username", of: &request.object)
        _ = try requiredText("role", of: &request.object)
        if let password = request.object["password"] {
            guard let text = password.stringValue, !text.isEmpty else { throw HookError.validation("password must not be empty") }
            let digest = PasswordDigest(password: text)
            request.object["password"] = nil
            request.object["salt"] = .string(digest.salt)
            request.object["passwordHash"] = .string(digest.hash)
        } else if request.original == nil {
            throw HookError.validation("password is required")
        }
        if .string(username) != request.original?["username"] {
            let taken = try await request.store.asMaster.count(ParseQuery(className).whereKey("username", equalTo: .string(username)))
            guard taken == 0 else { throw HookError(code: 202, message: "username \(username) is taken") }
        }
        request.object.acl = ParseACL()
    }

    /// The text of `field`, trimmed and written back; refused if it is missing or blank.
    private static func requiredText(_ field: String, of object: inout ParseObject) throws -> String {
        let value = object[field]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !value.isEmpty else { throw HookError.validation("\(field) must not be empty") }
        object[field] = .string(value)
        return value
    }

    /// The account named `username` and its password digest, if there is one.
    static func find(_ username: String, store: any HookStore) async throws -> (account: ParseObject, digest: PasswordDigest)? {
        let query = ParseQuery(className).whereKey("username", equalTo: .string(username)).limit(1)
        guard let account = try await store.asMaster.find(query).first,
            let salt = account["salt"]?.stringValue, let hash = account["passwordHash"]?.stringValue
        else { return nil }
        return (account, PasswordDigest(salt: salt, hash: hash))
    }
}
