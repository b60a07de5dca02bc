import CloudletRuntime
import NIOSSL

/// Where the host fetches the keys that Apple and Google sign identity tokens with (their JSON
/// Web Key Sets), and which certificates it trusts on the way: the providers' own URLs and the
/// system's roots by default. Only tests, and an operator who runs a stand-in on purpose, change them.
public struct IdentityProviderEndpoints: Sendable {
    /// Apple's published keys for Sign in with Apple.
    public var appleKeysURL = "https://appleid.apple.com/auth/keys"
    /// Google's published keys for Google Sign-In.
    public var googleKeysURL = "https://www.googleapis.com/oauth2/v3/certs"
    /// The roots trusted to fetch the keys over HTTPS.
    public var trustRoots: NIOSSLTrustRoots = .default

    public init() {}

    /// The key set URL of `provider`; nil for one without keys (`anonymous`).
    func keysURL(of provider: AuthProvider) -> String? {
        switch provider {
        case .anonymous: nil
        case .apple: appleKeysURL
        case .google: googleKeysURL
        }
    }

    /// The `iss` claims `provider`'s tokens may carry (fixed: they name the provider, not where its keys are fetched).
    static func issuers(of provider: AuthProvider) -> [String] {
        switch provider {
        case .anonymous: []
        case .apple: ["https://appleid.apple.com"]
        case .google: ["accounts.google.com", "https://accounts.google.com"]
        }
    }
}
