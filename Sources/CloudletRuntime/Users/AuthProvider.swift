import Cloudlet

/// The identity providers a user may sign up, log in and link with through `authData`, as Parse
/// Server's built-in adapters of the same names.
public enum AuthProvider: String, Sendable, Hashable, CaseIterable {
    /// A device's own random id: no proof, nothing to check (Parse's anonymous users).
    case anonymous
    /// Sign in with Apple: the identity token (`token`) is a JWT Apple signed.
    case apple
    /// Google Sign-In: the ID token (`id_token`) is a JWT Google signed.
    case google

    /// The member of the provider's `authData` that holds its identity token; nil for `anonymous`.
    public var tokenMember: String? {
        switch self {
        case .anonymous: nil
        case .apple: "token"
        case .google: "id_token"
        }
    }
}

/// Which providers an app accepts, from its settings: anonymous users unless turned off, and Apple
/// and Google once the app names the audiences its identity tokens must be issued to.
public struct AuthProviderSettings: Sendable, Hashable {
    /// Whether `anonymous` sign-ups and logins are accepted (Parse Server's `enableAnonymousUsers`).
    public var anonymousUsers = true
    /// The `aud` an Apple identity token may carry: the app's bundle ids (and Services ids for the
    /// web). None: Sign in with Apple is refused (252).
    public var appleBundleIds: [String] = []
    /// The `aud` a Google ID token may carry: the app's OAuth client ids. None: Google is refused (252).
    public var googleClientIds: [String] = []

    public init(anonymousUsers: Bool = true, appleBundleIds: [String] = [], googleClientIds: [String] = []) {
        self.anonymousUsers = anonymousUsers
        self.appleBundleIds = appleBundleIds
        self.googleClientIds = googleClientIds
    }

    /// The audiences `provider`'s tokens must name one of (empty for `anonymous`).
    func audiences(of provider: AuthProvider) -> [String] {
        switch provider {
        case .anonymous: []
        case .apple: appleBundleIds
        case .google: googleClientIds
        }
    }
}

/// Checks identity tokens against their provider's published keys. The host's implementation
/// fetches and caches the keys; the runtime only asks.
public protocol IdentityTokenVerifying: Sendable {
    /// Returns when `token` is a JWT that `provider` signed with one of its current keys, issued by
    /// it, to one of `audiences`, for the user `subject`, and not expired; throws 101 otherwise.
    func verify(_ token: String, from provider: AuthProvider, subject: String, audiences: [String]) async throws
}
