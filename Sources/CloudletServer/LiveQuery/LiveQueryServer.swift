import Cloudlet
import CloudletRuntime
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// The server's LiveQuery: the WebSockets Parse SDKs open at the REST API's mount path (and at
/// ``LiveQueryServerSettings/path``), each app's ``LiveQueryHub``, and the bounds of both
/// (``LiveQueryServerSettings``). As a service, it runs the hubs' loops until the server stops.
///
/// Each WebSocket runs in its connection's own task: it reads the client's messages one at a time
/// (``LiveQuerySession``) while a second task of the connection writes its outbox to the socket.
/// Each app's events are decided on its hub's loop, one write at a time, and reach the clients'
/// outboxes without waiting on any socket.
final class LiveQueryServer: Service, Sendable {
    /// The apps, found by the `applicationId` of `connect`.
    let apps: AppDirectory
    let settings: LiveQueryServerSettings
    let metrics: CloudletMetrics
    private let paths: Set<String>
    private let logger: Logger
    private let state = Mutex(State())
    private let hubsStarted: AsyncStream<LiveQueryHub>
    private let startHub: AsyncStream<LiveQueryHub>.Continuation

    private struct State {
        var hubs: [String: LiveQueryHub] = [:]
        var connections: [String: Int] = [:]
    }

    /// LiveQuery for `apps`, accepting WebSockets at `mountPath` (the REST API's) and the settings' path.
    init(apps: AppDirectory, settings: LiveQueryServerSettings, mountPath: String, metrics: CloudletMetrics, logger: Logger) {
        self.apps = apps
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        paths = Set([mountPath.isEmpty ? "/" : mountPath] + (settings.normalizedPath.map { [$0] } ?? []))
        (hubsStarted, startHub) = AsyncStream.makeStream()
    }

    /// Runs every hub's loop until the server shuts down; then each hub disconnects its clients.
    func run() async throws {
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                for await hub in hubsStarted {
                    group.addTask { await hub.run() }
                }
            } onGracefulShutdown: { [self] in
                startHub.finish()
                for hub in state.withLock({ Array($0.hubs.values) }) { hub.stop() }
            }
        }
    }

    /// How WebSockets are read and kept: the largest message a client may send, and pings.
    var webSocketConfiguration: WebSocketServerConfiguration {
        WebSocketServerConfiguration(maxFrameSize: settings.maximumMessageBytes, autoPing: .enabled(timePeriod: settings.pingInterval))
    }

    /// Whether `request` may become a LiveQuery WebSocket: a request to one of its paths. One that
    /// may leaves the HTTP deadlines behind for `deadlines`' own (``UnreadDeadlineHandler``).
    func shouldUpgrade(
        _ request: HTTPRequest, channel: any Channel, deadlines: ConnectionLimits
    ) throws -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = request.path.map { String($0.prefix { $0 != "?" }) } ?? ""
        guard paths.contains(path) else { return .dontUpgrade }
        try channel.pipeline.syncOperations.addHandler(UnreadDeadlineHandler(limits: deadlines, metrics: metrics), position: .first)
        return .upgrade([:]) { [self] inbound, outbound, _ in
            try await serve(inbound, outbound, channel: channel)
        }
    }

    /// Serves one WebSocket until either side closes it: closed by the server when no `connect`
    /// is accepted within ``LiveQueryServerSettings/connectTimeout``, or when its client does not read
    /// its messages as fast as they come (its outbox overflows).
    private func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, channel: any Channel) async throws {
        let outbox = LiveQueryOutbox(maximumMessages: settings.maximumQueuedMessages, maximumBytes: settings.maximumQueuedBytes) {
            [metrics] end in
            // Closed at once, without a close frame: a client that does not read would hold the
            // writer in its write, and would never take one.
            switch end {
            case .overflowed:
                metrics.liveQueryRefused(reason: "unread")
                channel.close(promise: nil)
            case .disconnected:
                channel.close(promise: nil)
            case .finished:
                break
            }
        }
        let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(settings.connectTimeout)) { [metrics] in
            metrics.liveQueryRefused(reason: "connect_timeout")
            channel.close(promise: nil)
        }
        var session = LiveQuerySession(server: self, outbox: outbox) { deadline.cancel() }
        defer {
            deadline.cancel()
            session.end()
        }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await Self.write(outbox, to: outbound) }
            defer { outbox.finish() }
            for try await message in inbound.messages(maxSize: settings.maximumMessageBytes) {
                await session.handle(message)
            }
        }
    }

    /// Writes the outbox's messages to the socket until it ends.
    private static func write(_ outbox: LiveQueryOutbox, to outbound: WebSocketOutboundWriter) async throws {
        while let message = await outbox.next() {
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: message))))
        }
    }

    // MARK: Apps

    /// Counts a connection of app `appId`; false (and not counted) at its bound.
    func admitConnection(to appId: String) -> Bool {
        let count = state.withLock { state -> Int? in
            let open = state.connections[appId, default: 0]
            guard open < settings.maximumConnectionsPerApp else { return nil }
            state.connections[appId] = open + 1
            return open + 1
        }
        guard let count else { return false }
        metrics.liveQueryConnections(app: appId, count: count)
        return true
    }

    /// Gives back a connection of app `appId` counted by ``admitConnection(to:)``.
    func releaseConnection(of appId: String) {
        let count = state.withLock { state in
            let left = state.connections[appId, default: 1] - 1
            state.connections[appId] = left > 0 ? left : nil
            return left
        }
        metrics.liveQueryConnections(app: appId, count: count)
    }

    /// The hub of `app`: made (and its loop started) the first time, or again once the app's
    /// stores were replaced (the old hub stops and disconnects its clients).
    func hub(for app: HostedApp) -> LiveQueryHub {
        let feed = app.runtime.context.stores.liveChanges
        let (hub, replaced, made) = state.withLock { state -> (LiveQueryHub, LiveQueryHub?, Bool) in
            let current = state.hubs[app.id]
            if let current, current.feed === feed { return (current, nil, false) }
            let hub = LiveQueryHub(
                appId: app.id, feed: feed,
                app: { [apps, id = app.id] in apps.app(id).map(\.runtime.context).flatMap { $0.stores.liveChanges === feed ? $0 : nil } },
                metrics: metrics, logger: logger)
            state.hubs[app.id] = hub
            return (hub, current, true)
        }
        replaced?.stop()
        if made { startHub.yield(hub) }
        return hub
    }
}
