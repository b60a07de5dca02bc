import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import Testing

/// The app's LiveQuery hooks on a real server: `beforeConnect` and `beforeSubscribe` may refuse
/// (the client gets the hook's error), `beforeSubscribe` may change the query the subscription
/// matches and sends, and `afterLiveQueryEvent` may change or drop each event to each subscriber.
@Suite("LiveQuery hooks")
struct LiveQueryHookTests {
    typealias Fixture = LiveQueryFixture

    @Test("beforeConnect sees who connects and may refuse: the client gets the hook's error, and no connection is counted")
    func beforeConnect() async throws {
        let log = HookLog()
        var hooks = HookRegistry()
        hooks.beforeConnect { request in
            log.append("\(request.context.user?.id ?? "-") \(request.context.isMaster) \(request.clients)")
            guard request.context.user != nil || request.context.isMaster else { throw HookError.failed("log in first") }
        }
        try await Fixture.with(hooks: hooks) { fixture in
            let ada = try await fixture.signUp("ada")
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                let refused = try #require(await socket.connect())
                #expect(refused["op"] == "error" && refused["code"] == 141 && refused["error"] == "log in first", "\(refused)")
                #expect(fixture.metric("cloudlet_livequery_connections", #"app="a""#) == 0)
                #expect(try #require(await socket.subscribe(1, "Message"))["code"] == 2, "a refused client is not connected")
                #expect(try #require(await socket.connect(sessionToken: ada.token))["op"] == "connected")
            }
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                #expect(await socket.connect(keys: ["masterKey": "master-a"])?["op"] == "connected")
            }
            #expect(log.all == ["- false 1", "\(ada.id) false 1", "- true 1"])
        }
    }

    @Test("beforeSubscribe may refuse a subscription or change its where and keys; a changed query is checked as a client's")
    func beforeSubscribe() async throws {
        var hooks = HookRegistry()
        hooks.beforeSubscribe("Message") { request in
            if request.query.constraints["room"] == "secret" { throw ParseError(code: 119, message: "not this room") }
            if request.query.constraints["room"] == "inner" { request.query.constraints["author"] = ["$inQuery": ["where": [:], "className": "_User"]] }
            request.query.constraints["hidden"] = ["$ne": true]
            request.query.keys = ["text"]
        }
        try await Fixture.with(hooks: hooks) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                let refused = try #require(await socket.subscribe(1, "Message", where: ["room": "secret"]))
                #expect(refused["op"] == "error" && refused["code"] == 119 && refused["requestId"] == 1 && refused["error"] == "not this room")
                let unmatchable = try #require(await socket.subscribe(2, "Message", where: ["room": "inner"]))
                #expect(unmatchable["op"] == "error" && unmatchable["code"] == 102 && unmatchable["requestId"] == 2, "\(unmatchable)")
                #expect(fixture.metric("cloudlet_livequery_subscriptions", #"app="a""#) == 0)
                #expect(try #require(await socket.subscribe(3, "Message", where: ["room": "blue"]))["op"] == "subscribed")
                fixture.publish(.create, Fixture.message("hidden", ["room": "blue", "hidden": true, "text": "no"]))
                fixture.publish(.create, Fixture.message("shown", ["room": "blue", "text": "yes", "extra": 1]))
                let created = try #require(await socket.next())
                #expect(created["op"] == "create" && created["requestId"] == 3 && created["object"]?["objectId"] == "shown", "\(created)")
                #expect(created["object"]?["text"] == "yes" && created["object"]?["extra"] == nil && created["object"]?["room"] == nil)
            }
        }
    }

    @Test("afterLiveQueryEvent changes the object each subscriber gets or drops the event; one past its time limit is lost, and the next goes out")
    func afterLiveQueryEvent() async throws {
        let log = HookLog()
        var hooks = HookRegistry()
        hooks.afterLiveQueryEvent("Message", timeLimit: .milliseconds(300)) { request in
            log.append("\(request.event.rawValue) \(request.object.objectId ?? "-") \(request.original?["text"]?.stringValue ?? "-")")
            if request.object["slow"] == true { try await Task.sleep(for: .seconds(5)) }
            if request.object["drop"] == true { request.sendEvent = false }
            request.object["text"] = request.object["text"]?.stringValue.map { .string($0.uppercased()) }
            request.object["checked"] = true
        }
        try await Fixture.with(hooks: hooks) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                _ = await socket.subscribe(1, "Message")
                let first = Fixture.message("m1", ["text": "hi"])
                fixture.publish(.create, Fixture.message("m0", ["text": "dropped", "drop": true]))
                fixture.publish(.create, Fixture.message("m2", ["text": "late", "slow": true]))
                fixture.publish(.create, first)
                let created = try #require(await socket.next())
                #expect(created["op"] == "create" && created["object"]?["objectId"] == "m1", "\(created)")
                #expect(created["object"]?["text"] == "HI" && created["object"]?["checked"] == true)
                var edited = first
                edited.fields["text"] = "hello"
                fixture.publish(.update, edited, original: first)
                let updated = try #require(await socket.next())
                #expect(updated["op"] == "update" && updated["object"]?["text"] == "HELLO" && updated["original"]?["text"] == "hi", "\(updated)")
            }
            #expect(log.all == ["create m0 -", "create m2 -", "create m1 -", "update m1 hi"])
        }
    }
}
