import Cloudlet

extension AppRuntime {
    /// The app's config as `caller` may read it (see ``GlobalConfig/visible(toMaster:)``).
    public func globalConfig(caller: Caller) async throws -> GlobalConfig {
        try await stores.config.globalConfig().visible(toMaster: caller.isMaster)
    }

    /// Applies `update` to the app's config; the master key only (119, 403).
    public func updateGlobalConfig(_ update: GlobalConfigUpdate, caller: Caller) async throws {
        guard caller.isMaster else { throw ParseError.masterKeyRequired }
        try await stores.config.updateGlobalConfig { try update.applied(to: $0) }
    }
}
