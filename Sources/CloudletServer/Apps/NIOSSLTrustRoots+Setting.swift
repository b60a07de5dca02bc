import NIOSSL

extension NIOSSLTrustRoots {
    /// The trust roots an app setting names: the certificates of the PEM file `file` (the system's
    /// without one). Throws the setting's error, naming `member`, for a file that holds none.
    static func setting(_ file: String?, member: String) throws -> NIOSSLTrustRoots {
        guard let file else { return .default }
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(file), !certificates.isEmpty else {
            throw AppSettings.invalid("\(member): \(file) holds no PEM certificate")
        }
        return .certificates(certificates)
    }
}
