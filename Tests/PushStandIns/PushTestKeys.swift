import Cloudlet
import Crypto
import Foundation
import _CryptoExtras

/// Keys made for a test and written to a fresh temporary folder as operators keep them: an APNs
/// `.p8` key (P-256, PKCS#8 PEM) and a Firebase service-account JSON key (RSA 2048).
public struct PushTestKeys: Sendable {
    /// The folder the key files are in.
    public let folder: URL
    /// The APNs key, whose public half the APNs stand-in checks.
    public let apnsKey = P256.Signing.PrivateKey()
    /// The service account's key, whose public half the FCM stand-in checks.
    public let serviceAccountKey: _RSA.Signing.PrivateKey
    /// The `.p8` file.
    public let apnsKeyFile: String

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        serviceAccountKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        apnsKeyFile = folder.appendingPathComponent("AuthKey_TESTKEY123.p8").path
        try Data(apnsKey.pemRepresentation.utf8).write(to: URL(fileURLWithPath: apnsKeyFile))
    }

    /// Writes the service-account key file of `projectId` and `clientEmail` whose `token_uri` is
    /// `tokenURI`; returns its path.
    public func writeServiceAccount(projectId: String, clientEmail: String, tokenURI: String) throws -> String {
        let json: ParseValue = [
            "type": "service_account", "project_id": .string(projectId), "private_key_id": "0123456789abcdef",
            "private_key": .string(serviceAccountKey.pkcs8PEMRepresentation), "client_email": .string(clientEmail),
            "client_id": "100000000000000000000", "token_uri": .string(tokenURI),
        ]
        let path = folder.appendingPathComponent("service-account.json").path
        try Data(JSONWriter.bytes(json)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Removes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
