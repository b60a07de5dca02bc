import Cloudlet
import Foundation
import _CryptoExtras

/// A Google service account's JSON key, as the Firebase console downloads it: the project, the
/// account's email, its RSA private key and the OAuth token endpoint.
public struct FCMServiceAccount: Sendable {
    /// The Firebase project the messages are sent in.
    public var projectId: String
    /// The account's email, the `iss` of its assertions.
    public var clientEmail: String
    /// Where assertions are exchanged for access tokens (`token_uri`).
    public var tokenURI: String
    /// The key that signs the assertions.
    public var privateKey: _RSA.Signing.PrivateKey

    /// The account in the key file at `path`. Throws ``PushKeyError`` saying what is wrong.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw PushKeyError("cannot read \(path)") }
        guard let json = (try? JSONParser.parse(Array(data)))?.objectValue else { throw PushKeyError("\(path) is not a JSON object") }
        func member(_ name: String) throws -> String {
            guard let value = json[name]?.stringValue, !value.isEmpty else { throw PushKeyError("\(path) has no \(name)") }
            return value
        }
        projectId = try member("project_id")
        clientEmail = try member("client_email")
        tokenURI = try member("token_uri")
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: try member("private_key"))
        } catch let error as PushKeyError {
            throw error
        } catch {
            throw PushKeyError("\(path) has no RSA private_key in PEM form")
        }
    }
}

/// A push key or key file that cannot be used, and why.
public struct PushKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
