import CloudletRuntime
import PostgresNIO
import Synchronization

/// How the PostgreSQL stores tell every node what a write made stale in its caches of an app
/// (``StoreChange``): a notification sent in the write's transaction, so heard at its commit by
/// every node listening (the one that wrote too), on one of two topics of the app:
///
/// - `sessions <schema>|t:<token hash>`, `|u:<user id>`, or `|*` (every session): what a logout,
///   a password change, a user deleted, a login replacing a session, or a write of `_Role` ends;
/// - `schema <schema>|c:<class>`, or `|*` (everything): a class's schema changed or its objects
///   were purged (the topic that also drops the field types every store of the app cached,
///   ``PostgresFieldTypes``).
///
/// A detail that would not fit a notification is sent as `*`, which forgets more.
enum PostgresStoreChanges {
    /// The topic of session changes in the app of `schema`.
    static func sessionsTopic(_ schema: PostgresAppSchema) -> String { "sessions " + schema.name }

    /// The topic of schema changes in the app of `schema`.
    static func schemaTopic(_ schema: PostgresAppSchema) -> String { PostgresFieldTypes.changeTopic(schema) }

    /// What stands for "all of them" in a notification's detail.
    private static let all = "*"

    /// Notifies every node of `change` in the app of `schema`, at the commit of the transaction of `connection`.
    static func notify(_ change: StoreChange, in schema: PostgresAppSchema, on connection: PostgresConnection, logger: Logger) async throws {
        let (topic, detail) = notice(of: change, in: schema)
        let fits = PostgresNotifications.payload(topic, detail: detail).utf8.count <= PostgresNotifications.maximumPayloadBytes
        try await PostgresNotifications.notify(topic, detail: fits ? detail : all, on: connection, logger: logger)
    }

    /// The topic and detail that tell of `change`.
    static func notice(of change: StoreChange, in schema: PostgresAppSchema) -> (topic: String, detail: String) {
        switch change {
        case .sessions(.session(let tokenHash)): (sessionsTopic(schema), "t:" + tokenHash)
        case .sessions(.user(let id)): (sessionsTopic(schema), "u:" + id)
        case .sessions(.everyone): (sessionsTopic(schema), all)
        case .classSchema(let className): (schemaTopic(schema), "c:" + className)
        case .everything: (schemaTopic(schema), all)
        }
    }

    /// The session change a notification's `detail` tells of; every session for one it does not read.
    static func sessionChange(_ detail: String?) -> StoreChange {
        if let tokenHash = detail?.dropping(prefix: "t:") { return .sessions(.session(tokenHash: tokenHash)) }
        if let id = detail?.dropping(prefix: "u:") { return .sessions(.user(id: id)) }
        return .sessions(.everyone)
    }

    /// The schema change a notification's `detail` tells of; everything for one it does not read.
    static func schemaChange(_ detail: String?) -> StoreChange {
        detail?.dropping(prefix: "c:").map(StoreChange.classSchema) ?? .everything
    }
}

extension PostgresDatabase {
    /// What every node's writes change in the caches of the app of `schema`, as this node hears it:
    /// one feed per app, listening first if this node is not yet. The stores built over the app's
    /// schema give it to their caches: `stores.changes = await database.storeChanges(of: schema)`.
    ///
    /// Once this node stops listening, and again once it listens, the feed tells of
    /// ``StoreChange/everything``, for what it missed meanwhile.
    package func storeChanges(of schema: PostgresAppSchema) async -> StoreChanges {
        let (feed, isNew) = changeFeeds.withLock { feeds in
            if let feed = feeds[schema] { return (feed, false) }
            let feed = StoreChanges()
            feeds[schema] = feed
            return (feed, true)
        }
        if isNew {
            notifications.onNotification(of: PostgresStoreChanges.sessionsTopic(schema)) { notice in
                // What was missed is told once, by the schema topic's handler.
                if case .notified(let detail) = notice { feed.publish(PostgresStoreChanges.sessionChange(detail)) }
            }
            notifications.onNotification(of: PostgresStoreChanges.schemaTopic(schema)) { notice in
                switch notice {
                case .notified(let detail): feed.publish(PostgresStoreChanges.schemaChange(detail))
                case .missed: feed.publish(.everything)
                }
            }
        }
        await notifications.listen(with: client, logger: logger)
        return feed
    }
}

extension String {
    /// The rest of the string after `prefix`, or nil if it does not start with it.
    fileprivate func dropping(prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
