import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A self-signed P-256 certificate for `localhost` and `127.0.0.1`, valid for a day, made for one
/// stand-in server. Its name is its own, so that a client may trust several stand-ins at once.
struct StandInCertificate {
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

    init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Cloudlet stand-in \(UUID().uuidString)") }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        }
        let now = Date()
        let made = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(key))
        certificate = try NIOSSLCertificate(bytes: Array(try made.serializeAsPEM().pemString.utf8), format: .pem)
        privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }
}
