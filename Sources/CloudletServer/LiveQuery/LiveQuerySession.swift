import Cloudlet
import CloudletRuntime
import Foundation
import HummingbirdWebSocket
import NIOCore

/// One LiveQuery WebSocket's conversation: the client's messages read one at a time, each
/// answered through the connection's outbox. A message over the connection's pace is refused
/// (155) without being read; any other is read as a ``LiveQueryRequest``: `connect` admits the
/// client to its app, `subscribe`, `update` and `unsubscribe` change its subscriptions in the app's
/// ``LiveQueryHub``.
struct LiveQuerySession {
    /// The client once its `connect` was accepted, and where its subscriptions are kept.
    struct Connected {
        let client: LiveQueryClient
        let hub: LiveQueryHub
        let appId: String
    }

    private let server: LiveQueryServer
    private let outbox: LiveQueryOutbox
    private let onConnect: @Sendable () -> Void
    private var pace: MessagePace
    private(set) var connected: Connected?

    /// A session of `server` writing to `outbox`, calling `onConnect` once a `connect` is accepted.
    init(server: LiveQueryServer, outbox: LiveQueryOutbox, onConnect: @escaping @Sendable () -> Void) {
        self.server = server
        self.outbox = outbox
        self.onConnect = onConnect
        pace = MessagePace(server.settings.messagesPerConnection)
    }

    /// Answers one message of the client.
    mutating func handle(_ message: WebSocketMessage) async {
        guard pace.admit(at: Date()) else {
            server.metrics.liveQueryRefused(reason: "messages")
            let quota = server.settings.messagesPerConnection
            return refuse(LiveQueryRefusal(code: 155, message: "too many messages: at most \(quota.count) in \(quota.window)"))
        }
        do throws(LiveQueryRefusal) {
            let request =
                switch message {
                case .text(let text): try LiveQueryRequest(json: text.utf8)
                case .binary(let bytes): try LiveQueryRequest(json: bytes.readableBytesView)
                }
            switch request {
            case .connect(let connect): try await self.connect(connect)
            case .subscribe(let subscribe), .update(let subscribe): try await self.subscribe(subscribe)
            case .unsubscribe(let requestId): try unsubscribe(requestId)
            }
        } catch {
            refuse(error)
        }
    }

    /// Leaves the app: the client's subscriptions and its place among the app's connections.
    func end() {
        guard let connected else { return }
        connected.hub.remove(connected.client)
        server.releaseConnection(of: connected.appId)
    }

    private func refuse(_ refusal: LiveQueryRefusal) {
        outbox.send(LiveQueryMessage.error(refusal))
    }

    /// Admits the client to the app `request` names: its keys must be the app's (4), its session
    /// valid (209), and the app under its bound on connections (155). A `beforeConnect` hook would
    /// run here, once all of that holds.
    private mutating func connect(_ request: LiveQueryConnect) async throws(LiveQueryRefusal) {
        guard connected == nil else { throw .invalidRequest("this connection is connected already") }
        guard let app = server.apps.app(request.applicationId) else { throw .invalidKey("unknown application id") }
        let isMaster: Bool
        if let masterKey = request.masterKey {
            guard app.keys.acceptsMasterKey(masterKey) else { throw .invalidKey("Key in request is not valid") }
            isMaster = true
        } else {
            guard let clientKey = request.clientKey, app.keys.acceptsClientKey(clientKey) else { throw .invalidKey("Key in request is not valid") }
            isMaster = false
        }
        if let token = request.sessionToken, !isMaster {
            do {
                _ = try await app.runtime.accounts.caller(sessionToken: token, installationId: request.installationId, requestId: "livequery")
            } catch let error as ParseError {
                throw LiveQueryRefusal(error)
            } catch {
                throw LiveQueryRefusal(code: 1, message: "the session could not be checked; try again", reconnect: true)
            }
        }
        guard server.admitConnection(to: app.id) else {
            server.metrics.liveQueryRefused(reason: "connections")
            throw LiveQueryRefusal(code: 155, message: "the app has too many LiveQuery connections open", reconnect: true)
        }
        let client = LiveQueryClient(isMaster: isMaster, sessionToken: request.sessionToken, installationId: request.installationId, outbox: outbox)
        connected = Connected(client: client, hub: server.hub(for: app), appId: app.id)
        onConnect()
        outbox.send(LiveQueryMessage.connected(clientId: client.id, installationId: client.installationId))
    }

    /// Subscribes (or, for an `update`, subscribes again with a new query) as the app's hub admits it.
    private func subscribe(_ request: LiveQuerySubscribe) async throws(LiveQueryRefusal) {
        let (client, hub, appId) = try connection(for: request.requestId)
        guard let app = server.apps.app(appId) else { throw LiveQueryRefusal.invalidKey("unknown application id").about(request.requestId) }
        do {
            try await hub.subscribe(request, by: client, in: app.runtime.context, limit: server.settings.maximumSubscriptionsPerConnection)
        } catch {
            if error.code == 155 { server.metrics.liveQueryRefused(reason: "subscriptions") }
            throw error
        }
    }

    private func unsubscribe(_ requestId: Int) throws(LiveQueryRefusal) {
        let (client, hub, _) = try connection(for: requestId)
        guard hub.unsubscribe(requestId, of: client) else {
            throw LiveQueryRefusal(
                code: 2, message: "Cannot find subscription with clientId \(client.id) subscriptionId \(requestId). Make sure you subscribe to live query server before unsubscribing.",
                requestId: requestId)
        }
        outbox.send(LiveQueryMessage.unsubscribed(clientId: client.id, requestId: requestId, installationId: client.installationId))
    }

    /// The connected client, for a request about subscription `requestId`; code 2 before `connect`.
    private func connection(for requestId: Int) throws(LiveQueryRefusal) -> (LiveQueryClient, LiveQueryHub, String) {
        guard let connected else { throw LiveQueryRefusal.notConnected.about(requestId) }
        return (connected.client, connected.hub, connected.appId)
    }
}
