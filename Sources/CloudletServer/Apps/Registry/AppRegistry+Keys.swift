import Cloudlet

extension AppRegistry {
    /// Rotates the `kind` key of app `id` without downtime: a new active key is made and answered
    /// (this once, for a master key), the active one becomes retiring and stays valid until
    /// ``retireKeys(of:_:)``. A key that was already retiring is removed. Throws 101 if there is no such app.
    public func rotateKey(of id: String, _ kind: AppKeyKind) async throws -> String {
        let key = AppKeys.randomKey()
        _ = try await storage.changeKeys(of: id, kind, .rotate(to: Self.stored(key, kind)), at: Self.now())
        return key
    }

    /// Removes the retiring `kind` keys of app `id`, which are then refused; answers how many there were.
    @discardableResult
    public func retireKeys(of id: String, _ kind: AppKeyKind) async throws -> Int {
        try await storage.changeKeys(of: id, kind, .retire, at: Self.now())
    }

    /// What ``ensure(_:settings:clientKey:masterKey:)`` did.
    public struct EnsuredApp: Sendable {
        /// The app as the registry keeps it.
        public var record: AppRecord
        /// The client key in use.
        public var clientKey: String
        /// The master key, when it was made or given now; nil when the registry keeps only its hash.
        public var masterKey: String?
    }

    /// Makes sure app `id` exists with `settings` (as `serve` does for the apps it is told about):
    /// creates it if needed; a given key that is not the app's active one replaces its keys of that kind.
    public func ensure(_ id: String, settings: AppSettings, clientKey: String? = nil, masterKey: String? = nil) async throws -> EnsuredApp {
        guard let existing = try await app(id) else {
            do {
                let created = try await create(id, settings: settings, clientKey: clientKey, masterKey: masterKey)
                return EnsuredApp(record: created.record, clientKey: created.clientKey, masterKey: created.masterKey)
            } catch let error as ParseError where error.code == 137 {
                // Another node starting at once may have created it first: then this one goes on as for an app that exists.
                guard try await app(id) != nil else { throw error }
                return try await ensure(id, settings: settings, clientKey: clientKey, masterKey: masterKey)
            }
        }
        for (kind, given) in [(AppKeyKind.client, clientKey), (.master, masterKey)] {
            guard let given else { continue }
            let value = Self.stored(given, kind)
            guard !existing.keys.contains(where: { $0.kind == kind && $0.state == .active && $0.value == value }) else { continue }
            _ = try await storage.changeKeys(of: id, kind, .replace(with: value), at: Self.now())
        }
        let record = existing.settings == settings ? try await app(id)! : try await update(id) { $0 = settings }
        let activeClientKey = record.keys.first { $0.kind == .client && $0.state == .active }?.value ?? ""
        return EnsuredApp(record: record, clientKey: activeClientKey, masterKey: masterKey)
    }

    /// The key as the registry keeps it: client keys as they are, master keys as their SHA-256.
    static func stored(_ key: String, _ kind: AppKeyKind) -> String {
        kind == .client ? key : HexBytes.encode(AppKeys.hash(key))
    }

    // MARK: Operator key

    /// The name the operator key's hash is kept under among the host's settings.
    private static let operatorKeySetting = "operator_key_sha256"

    /// The operator key kept in the registry (as its hash), or nil.
    public func operatorKey() async throws -> OperatorKey? {
        try await storage.hostSetting(Self.operatorKeySetting).map { OperatorKey(hash: HexBytes.decode($0)) }
    }

    /// Keeps `key`'s hash as the operator key.
    public func setOperatorKey(_ key: OperatorKey) async throws {
        try await storage.setHostSetting(Self.operatorKeySetting, HexBytes.encode(key.hash), replacing: true)
    }

    /// Keeps `key`'s hash as the operator key if the registry keeps none yet (another node
    /// starting at once may have kept its own first); answers whether it did.
    public func setOperatorKeyIfNone(_ key: OperatorKey) async throws -> Bool {
        try await storage.setHostSetting(Self.operatorKeySetting, HexBytes.encode(key.hash), replacing: false)
    }
}
