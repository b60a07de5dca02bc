import Cloudlet

/// The `authData` of a sign-up, login or link, checked for its form: an object with one member per
/// provider (``AuthProvider``), each the provider's data — an object whose `id` is the user's id
/// at the provider — or null, which unlinks the provider.
///
/// ```json
/// {"apple": {"id": "001234.abcd", "token": "<identity token>"}, "anonymous": null}
/// ```
package struct AuthData {
    /// The `_User` field that keeps a user's linked providers.
    package static let field = "authData"
    /// The longest `id` a provider's data may have, in bytes.
    static let maximumIdBytes = 256

    /// The providers named, each with its data, or null.
    let providers: [AuthProvider: ParseValue]

    /// The `authData` in `value`. Throws 252 when it is not an object of known providers, each
    /// null or an object with a string `id` of at most ``maximumIdBytes``.
    init(_ value: ParseValue) throws(ParseError) {
        guard let members = value.objectValue, !members.isEmpty else { throw Self.unsupported }
        var providers: [AuthProvider: ParseValue] = [:]
        for (name, data) in members {
            guard let provider = AuthProvider(rawValue: name) else { throw Self.unsupported }
            if data != .null {
                guard let id = data.objectValue?["id"]?.stringValue, !id.isEmpty, id.utf8.count <= Self.maximumIdBytes else {
                    throw Self.unsupported
                }
            }
            providers[provider] = data
        }
        self.providers = providers
    }

    /// The user id at each provider being linked (not the ones being unlinked).
    /// The provider a sign-in with this `authData` names its session after: the first, by name, of
    /// those with an id.
    var loginProvider: String {
        ids.keys.map(\.rawValue).sorted().first ?? "anonymous"
    }

    var ids: [AuthProvider: String] {
        providers.compactMapValues { $0.objectValue?["id"]?.stringValue }
    }

    /// The providers to link and unlink, by name, as ``ObjectChanges/authData`` takes them.
    var changes: [String: ParseValue] {
        Dictionary(uniqueKeysWithValues: providers.map { ($0.key.rawValue, $0.value) })
    }

    /// The providers whose data differs from what `stored` (a user's `authData`) keeps for them.
    func changed(from stored: ParseValue?) -> [AuthProvider: ParseValue] {
        providers.filter { provider, data in data != .null && stored?[provider.rawValue] != data }
    }

    /// `stored` (a user's `authData`, if any) with `changes` applied: each object replaces its
    /// provider's data, each null removes it; nil when no provider is left.
    static func merging(_ changes: [String: ParseValue], into stored: ParseValue?) -> ParseValue? {
        var providers = stored?.objectValue ?? [:]
        for (provider, data) in changes {
            if data == .null { providers.removeValue(forKey: provider) } else { providers[provider] = data }
        }
        return providers.isEmpty ? nil : .object(providers)
    }

    /// Parse's answer to an unknown provider, or to data it cannot use.
    package static let unsupported = ParseError(code: 252, message: "This authentication method is unsupported.")
}
