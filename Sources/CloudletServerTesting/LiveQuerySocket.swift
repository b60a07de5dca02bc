import Cloudlet
import CloudletTesting
import Foundation
import HummingbirdWSClient
import Logging

/// A LiveQuery client over a real WebSocket (hummingbird-websocket's client), as an SDK speaks to
/// the server: JSON messages sent, and the server's read in order. Tests of hooks and apps use it
/// to watch what a subscriber receives.
public final class LiveQuerySocket: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let inbox = MessageInbox<ParseValue>()

    private init(outgoing: AsyncStream<String>.Continuation) {
        self.outgoing = outgoing
    }

    /// Runs `body` with a socket to `ws://127.0.0.1:<port><path>`; closes it after.
    public static func with<Value: Sendable>(
        port: Int, path: String = "/parse", _ body: @Sendable (LiveQuerySocket) async throws -> Value
    ) async throws -> Value {
        let (messages, outgoing) = AsyncStream<String>.makeStream()
        let socket = LiveQuerySocket(outgoing: outgoing)
        let logger = Logger(label: "livequery-test-client", factory: { _ in SwiftLogNoOpLogHandler() })
        let inbox = socket.inbox
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask {
                _ = try? await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)", logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { writes in
                        writes.addTask {
                            for await text in messages { try await outbound.write(.text(text)) }
                        }
                        for try await message in inbound.messages(maxSize: 16 << 20) {
                            if case .text(let text) = message, let value = try? JSONParser.parse(text) { inbox.put(value) }
                        }
                        writes.cancelAll()
                    }
                }
                inbox.close()
                return nil
            }
            let value = try await body(socket)
            outgoing.finish()
            group.cancelAll()
            return value
        }
    }

    /// Sends `message` as JSON text.
    public func send(_ message: ParseValue) {
        outgoing.yield(JSONWriter.string(message))
    }

    /// Sends `text` as it is.
    public func send(text: String) {
        outgoing.yield(text)
    }

    /// The next message from the server, or nil if none comes within `timeout` (or the server
    /// closed the socket).
    public func next(within timeout: Duration = .seconds(10)) async -> [String: ParseValue]? {
        await inbox.next(within: timeout)?.objectValue
    }

    /// Whether the server closed the socket within `timeout`, reading (and dropping) what it sent before.
    public func closed(within timeout: Duration = .seconds(10)) async -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if await inbox.next(within: end - ContinuousClock.now) == nil { return inbox.isClosed }
        }
        return inbox.isClosed
    }

    /// `connect` to app `appId` with its client key (or `keys`), as `sessionToken` if given; the answer.
    public func connect(_ appId: String = "a", keys: [String: ParseValue]? = nil, sessionToken: String? = nil) async -> [String: ParseValue]? {
        var message: [String: ParseValue] = ["op": "connect", "applicationId": .string(appId)]
        for (name, key) in keys ?? ["clientKey": .string("client-\(appId)")] { message[name] = key }
        if let sessionToken { message["sessionToken"] = .string(sessionToken) }
        send(.object(message))
        return await next()
    }

    /// `subscribe` as `requestId` to `className` where `where`, with `extra` members of the query; the answer.
    public func subscribe(
        _ requestId: Int, _ className: String, where constraints: [String: ParseValue] = [:], query extra: [String: ParseValue] = [:],
        sessionToken: String? = nil
    ) async -> [String: ParseValue]? {
        var query = extra
        query["className"] = .string(className)
        query["where"] = .object(constraints)
        var message: [String: ParseValue] = ["op": "subscribe", "requestId": .number(Double(requestId)), "query": .object(query)]
        if let sessionToken { message["sessionToken"] = .string(sessionToken) }
        send(.object(message))
        return await next()
    }
}
