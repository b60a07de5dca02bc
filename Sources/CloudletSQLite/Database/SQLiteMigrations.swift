import GRDB

/// The tables of an app's database, as each feature's store defines them, and every change to
/// them since: one ordered list that a database applies as far as it has not yet.
enum SQLiteMigrations {
    /// Every migration, in the order databases apply them: a new one goes last.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        SQLiteObjectStore.registerTables(&migrator)
        SQLiteAccountStore.registerTables(&migrator)
        SQLiteHookRunStore.registerTables(&migrator)
        SQLitePushSchema.registerTables(&migrator)
        SQLiteInstallationIndex.registerIndexes(&migrator)
        SQLiteJobStore.registerTables(&migrator)
        SQLitePushSchema.registerLeanDeliveries(&migrator)
        SQLiteFileUsageStore.registerTables(&migrator)
        SQLiteWorkQueue.registerTables(&migrator)
        SQLitePushSchema.registerQueuedDeliveries(&migrator)
        SQLiteWorkQueue.registerAfterHookMigration(&migrator)
        SQLiteGlobalConfigStore.registerTables(&migrator)
        SQLiteAccountStore.registerSessionObjects(&migrator)
        SQLiteRelations.registerTables(&migrator)
        SQLiteRoles.registerMigration(&migrator)
        SQLiteTextIndex.registerTables(&migrator)
        SQLiteAccountStore.registerEmailTokens(&migrator)
        SQLiteAuthDataIndex.registerIndexes(&migrator)
        SQLiteSchemaStore.registerTables(&migrator)
        SQLiteSchemaStore.registerSortKeyIndexes(&migrator)
        SQLiteTextIndex.registerClassList(&migrator)
        SQLiteHookRunStore.registerKeyOnly(&migrator)
        return migrator
    }
}
