/// Where an app keeps its ``GlobalConfig``: the SQLite store keeps it in the app's database.
public protocol GlobalConfigStorage: Sendable {
    /// The stored config; an empty one if it was never written.
    func globalConfig() async throws -> GlobalConfig

    /// Stores what `change` makes of the stored config, in one write transaction, so that two
    /// updates at once each keep the other's parameters. Throws what `change` throws, or 116 when
    /// the result is larger than ``GlobalConfig/maximumBytes``; nothing is written then.
    func updateGlobalConfig(_ change: @escaping @Sendable (GlobalConfig) throws -> GlobalConfig) async throws
}
