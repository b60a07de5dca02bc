import Cloudlet
import CloudletRuntime
import Logging
import PostgresNIO
import Synchronization

/// One app's LiveQuery feed on this node (``AppStores/liveChanges``), fed by what the node hears
/// on the app's topic (``PostgresLiveChanges``): each change, its `File` values given this node's
/// URLs; a gap whenever the node may have missed some. Whether a write is published is the
/// writing node's to say, when it writes (as on SQLite): a change heard is published as it is,
/// even if the app's classes changed since.
final class PostgresLiveFeed: Sendable {
    /// The feed the stores of the app look at and its LiveQuery server subscribes to.
    let changes = LiveObjectChanges()
    private let urls = Mutex<FileURLs?>(nil)

    /// The URLs `File` values of the changes get, as the app's reads give them.
    var fileURLs: FileURLs? {
        get { urls.withLock { $0 } }
        set { urls.withLock { $0 = newValue } }
    }

    /// Publishes the change a notification's `detail` tells of, reading it first if it was too
    /// large for the notification; a gap if it cannot be had.
    func hear(_ detail: String?, in schema: PostgresAppSchema, reading client: PostgresClient, logger: Logger) async {
        var change: CommittedObjectChange?
        if let detail, detail.hasPrefix("#"), let row = Int64(detail.dropFirst()) {
            do {
                change = try await PostgresLiveChanges.read(row, in: schema, from: client, logger: logger)
            } catch {
                logger.warning("reading a live change: \(String(reflecting: error))", metadata: ["schema": "\(schema.name)"])
            }
        } else {
            change = detail.flatMap(PostgresLiveChanges.change(from:))
        }
        guard let change else {
            logger.warning("a live change could not be read; LiveQuery subscribers are told of a gap", metadata: ["schema": "\(schema.name)"])
            return changes.publishGap()
        }
        let urls = fileURLs
        changes.publish(
            CommittedObjectChange(
                kind: change.kind, object: FileURLs.presenting(change.object, with: urls),
                original: change.original.map { FileURLs.presenting($0, with: urls) }))
    }
}

extension PostgresDatabase {
    /// The LiveQuery feed of the app of `schema` on this node: one per app, fed from the first
    /// call by what the node hears once it listens (the stores built over the schema listen).
    func liveFeed(of schema: PostgresAppSchema) -> PostgresLiveFeed {
        let (feed, isNew) = liveFeeds.withLock { feeds in
            if let feed = feeds[schema] { return (feed, false) }
            let feed = PostgresLiveFeed()
            feeds[schema] = feed
            return (feed, true)
        }
        if isNew {
            let (client, logger) = (client, logger)
            notifications.onNotification(of: PostgresLiveChanges.topic(schema)) { notice in
                switch notice {
                case .notified(let detail): await feed.hear(detail, in: schema, reading: client, logger: logger)
                case .missed: feed.changes.publishGap()
                }
            }
        }
        return feed
    }
}
