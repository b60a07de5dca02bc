import CloudletRuntime

extension SQLiteObjectStorage: GlobalConfigStorage {
    public func globalConfig() async throws -> GlobalConfig {
        try await SQLiteGlobalConfigTable(pool: pool).read()
    }

    public func updateGlobalConfig(_ change: @escaping @Sendable (GlobalConfig) throws -> GlobalConfig) async throws {
        try await SQLiteGlobalConfigTable(pool: pool).update(change)
    }
}
