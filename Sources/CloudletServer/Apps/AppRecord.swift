import Cloudlet

/// The two kinds of app key.
public enum AppKeyKind: String, Sendable, Hashable, CaseIterable {
    /// Shipped inside client apps; kept as it is, so it can be shown again.
    case client
    /// Opens everything of the app; kept only as its SHA-256, shown once when it is made.
    case master
}

/// One app key as the registry keeps it.
public struct StoredAppKey: Sendable, Hashable {
    /// Whether a key is the one to use, or the previous one, still accepted until it is retired.
    public enum State: String, Sendable, Hashable {
        /// The key to use.
        case active
        /// The key a rotation replaced, accepted until it is retired.
        case retiring
    }

    /// Client or master.
    public var kind: AppKeyKind
    /// The key itself (client keys) or the hex SHA-256 of it (master keys).
    public var value: String
    /// Active, or retiring (still accepted until retired).
    public var state: State
    /// When the key was made, ISO 8601.
    public var createdAt: String
}

/// One app in the registry: its id, settings, keys and when it was created and last changed.
public struct AppRecord: Sendable, Hashable {
    /// The app id clients send as `X-Parse-Application-Id`.
    public var id: String
    /// Where its hooks run and its limits.
    public var settings: AppSettings
    /// Its client and master keys, active and retiring, oldest first.
    public var keys: [StoredAppKey]
    /// ISO 8601.
    public var createdAt: String
    /// ISO 8601.
    public var updatedAt: String

    /// The keys a server accepts for the app.
    public var acceptedKeys: AppKeys {
        AppKeys(
            clientKeys: keys.filter { $0.kind == .client }.map(\.value),
            masterKeyHashes: keys.filter { $0.kind == .master }.map { HexBytes.decode($0.value) })
    }

    /// The record as the admin API and `cloudlet apps show --json` answer it: settings, client keys
    /// with their state, and master keys by state only.
    public var json: ParseValue {
        var members = settings.json
        members["id"] = .string(id)
        members["createdAt"] = .string(createdAt)
        members["updatedAt"] = .string(updatedAt)
        members["clientKeys"] = .array(
            keys.filter { $0.kind == .client }.map { ["key": .string($0.value), "state": .string($0.state.rawValue)] })
        members["masterKeys"] = .array(
            keys.filter { $0.kind == .master }.map { ["state": .string($0.state.rawValue), "createdAt": .string($0.createdAt)] })
        return .object(members)
    }
}

/// Lowercase hexadecimal text of bytes, as the host database keeps hashes.
enum HexBytes {
    static func encode(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined()
    }

    static func decode(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }
}
