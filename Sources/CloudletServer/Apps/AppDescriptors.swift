import Cloudlet
import Foundation
import GRDB

/// The file descriptors apps may take: the process's limit less a reserve and the bound on
/// connections. An app is started only if the most it may hold fits in what is left, so that the
/// process never runs out (the runtime aborts the whole process when it cannot open a file, and
/// SQLite fails to open databases).
///
/// What is left is counted from the descriptors open now (`/proc/self/fd`, less the connections)
/// or, if more, from the most the apps already started may hold, so that their databases' readers
/// and their workers can still open lazily.
final class AppDescriptors: Sendable {
    /// Descriptors the host holds with no app and no connection: standard streams, `host.sqlite`'s
    /// two connections, the listening socket and signal handling (24 measured), and three for each
    /// event loop (its poll, wake-up and timer) of two groups of one loop a core.
    static let hostBaseline = 32 + 6 * ProcessInfo.processInfo.activeProcessorCount
    /// What one worker process holds in the host (measured): the host's end of its socket pair,
    /// the pipes of its standard output and error, and the process's own.
    static let perWorker = 4

    /// The process's descriptor limit.
    let limit: Int
    /// Descriptors kept for the rest of the process.
    let reserve: Int
    private let connections: OpenConnections

    init(limit: Int, reserve: Int, connections: OpenConnections) {
        self.limit = limit
        self.reserve = reserve
        self.connections = connections
    }

    /// The most descriptors an app with `settings` may hold: its database (a file and its log for
    /// the writer, each reader and the checkpointer, and one shared-memory file), its worker pool
    /// (``perWorker`` a worker) unless `ownExecutor`, and its push providers'
    /// connections.
    static func cost(of settings: AppSettings, ownExecutor: Bool) -> Int {
        let database = (GRDB.Configuration().maximumReaderCount + 2) * 2 + 1
        let pool = ownExecutor || settings.isolation == .inProcess ? 0 : settings.workerCount * perWorker
        let push = settings.push
        let apns = push.apns == nil ? 0 : HTTP2PushTransport.defaultConnections
        let fcm = push.fcm == nil ? 0 : HTTP2PushTransport.defaultConnections + PushHTTPTransport.connectionsPerHost
        let webhook = push.webhookURL == nil ? 0 : PushHTTPTransport.connectionsPerHost
        return database + pool + apns + fcm + webhook
    }

    /// Why app `id`, which may hold `cost` descriptors, cannot start beside apps that may hold
    /// `started` in all without cutting into the connections' bound or the reserve (503, code 1);
    /// nil if it can.
    func shortage(_ id: String, cost: Int, started: Int) -> ParseError? {
        let inUse = max(ProcessDescriptors.openCount() - connections.count, Self.hostBaseline + started)
        let left = limit - inUse - connections.maximum - reserve
        guard cost > left else { return nil }
        return ParseError(
            code: 1,
            message: "app \(id) not started: it may need \(cost) file descriptors and \(max(0, left)) are left of the limit of \(limit) "
                + "(\(inUse) in use, \(connections.maximum) kept for connections, \(reserve) in reserve); raise the limit "
                + "(ulimit -n), lower --max-connections, or delete apps",
            httpStatus: 503)
    }
}
