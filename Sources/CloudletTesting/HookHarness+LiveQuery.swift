import Cloudlet
import CloudletRuntime
import Foundation

extension HookHarness {
    /// The classes whose committed writes the harness's app publishes to LiveQuery, as the app
    /// setting `liveQuery.classNames` says on a server; none until set.
    public var liveQueryClasses: Set<String> {
        get { runtime.context.stores.liveChanges.classNames }
        set { runtime.context.stores.liveChanges.classNames = newValue }
    }

    /// Subscribes to `className` where `constraints`, as a LiveQuery client that connected with
    /// the client key (or the master key, with `master`) and `sessionToken` would, through the same
    /// checks and events as on a server (the subscription's access, the class's permissions, the
    /// LiveQuery hooks); throws the refusal a client would receive as an `error`. Read what the
    /// subscriber receives with ``LiveQuerySubscriber/next(within:)``; `keys` and `watch` are the
    /// query's members of those names.
    ///
    /// ```swift
    /// harness.liveQueryClasses = ["Messages"]
    /// let bob = try await harness.subscribe("Messages", where: ["room": "blue"], sessionToken: bobsSession)
    /// try await harness.create("Messages", ["room": "blue", "text": "Hi"])
    /// #expect(await bob.next()?["op"] == "create")
    /// ```
    public func subscribe(
        _ className: String, where constraints: [String: ParseValue] = [:], keys: [String]? = nil, watch: [String]? = nil,
        sessionToken: String? = nil, master: Bool = false
    ) async throws -> LiveQuerySubscriber {
        let subscriber = LiveQuerySubscriber(hub: liveQueryHub, master: master, sessionToken: sessionToken)
        let request = LiveQuerySubscribe(requestId: 1, className: className, constraints: constraints, keys: keys, watch: watch)
        do {
            try await liveQueryHub.subscribe(request, by: subscriber.client, in: runtime.context, limit: 1)
        } catch {
            subscriber.close()
            throw ParseError(code: error.code, message: error.message)
        }
        // The hub answers `subscribed` first: the events follow it.
        _ = await subscriber.next()
        return subscriber
    }
}

/// One LiveQuery subscription opened through ``HookHarness/subscribe(_:where:keys:watch:sessionToken:master:)``:
/// the messages its client receives, in order, as JSON objects (`create`, `enter`, `update`,
/// `leave`, `delete` events with `object` and `original`, or an `error`).
public final class LiveQuerySubscriber: Sendable {
    let client: LiveQueryClient
    private let hub: LiveQueryHub
    private let inbox = MessageInbox<[String: ParseValue]>()

    init(hub: LiveQueryHub, master: Bool, sessionToken: String?) {
        self.hub = hub
        let outbox = LiveQueryOutbox(maximumMessages: 10_000, maximumBytes: 64 << 20)
        client = LiveQueryClient(isMaster: master, sessionToken: sessionToken, installationId: nil, outbox: outbox)
        // The outbox's messages move to the inbox as they come, as a connection's writer takes them.
        Task { [inbox] in
            while let bytes = await outbox.next() {
                if let message = try? JSONParser.parse(bytes).objectValue { inbox.put(message) }
            }
            inbox.close()
        }
    }

    deinit {
        close()
    }

    /// The next message the subscriber receives, or nil if none comes within `timeout` (real time)
    /// or the subscription has ended.
    public func next(within timeout: Duration = .seconds(5)) async -> [String: ParseValue]? {
        await inbox.next(within: timeout)
    }

    /// Ends the subscription: no more messages come.
    public func close() {
        hub.remove(client)
        client.outbox.finish()
    }
}
