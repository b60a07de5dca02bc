import Cloudlet

/// An app's config (`/config`, `request.config()`): read as a caller may, changed by the master key.
public struct AppConfig: Sendable {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The app's config as `caller` may read it (see ``GlobalConfig/visible(toMaster:)``).
    public func read(caller: Caller) async throws -> GlobalConfig {
        try await app.stores.config.globalConfig().visible(toMaster: caller.isMaster)
    }

    /// Applies `update` to the app's config; the master key only (119, 403).
    public func update(_ update: GlobalConfigUpdate, caller: Caller) async throws {
        guard caller.isMaster else { throw ParseError.masterKeyRequired }
        try await app.stores.config.updateGlobalConfig { try update.applied(to: $0) }
    }
}
