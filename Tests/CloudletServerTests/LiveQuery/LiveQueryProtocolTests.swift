import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import Testing

/// The LiveQuery protocol over a real WebSocket on the server's port, as Parse SDKs speak it:
/// connect, subscribe, update, unsubscribe and the events decided from matches before and after.
@Suite("LiveQuery protocol")
struct LiveQueryProtocolTests {
    typealias Fixture = LiveQueryFixture

    @Test("connect answers connected with a client id; wrong keys, an unknown app and an invalid session answer Parse's codes")
    func connect() async throws {
        try await Fixture.with { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                let refused = try #require(await socket.connect(keys: ["clientKey": "wrong"]))
                #expect(refused["op"] == "error" && refused["code"] == 4 && refused["reconnect"] == false, "\(refused)")
                #expect(try #require(await socket.connect("nope"))["code"] == 4)
                #expect(try #require(await socket.connect(keys: ["masterKey": "wrong"]))["code"] == 4)
                #expect(try #require(await socket.connect(sessionToken: "r:unknown"))["code"] == 209)
                let before = try #require(await socket.subscribe(1, "Message"))
                #expect(before["op"] == "error" && before["code"] == 2 && before["requestId"] == 1, "\(before)")
                let connected = try #require(await socket.connect(keys: ["javascriptKey": "client-a"]))
                #expect(connected["op"] == "connected" && connected["clientId"]?.stringValue?.isEmpty == false, "\(connected)")
                #expect(try #require(await socket.connect())["code"] == 1, "a second connect is refused")
            }
            // The operator's path and the mount path both take WebSockets; another path does not.
            try await LiveQuerySocket.with(port: fixture.port, path: "/parse?x=1") { socket in
                #expect(await socket.connect()?["op"] == "connected")
            }
            try await LiveQuerySocket.with(port: fixture.port, path: "/elsewhere") { socket in
                #expect(await socket.connect() == nil)
            }
        }
        try await Fixture.with(adjust: { $0.liveQuery.path = "/live/" }) { fixture in
            try await LiveQuerySocket.with(port: fixture.port, path: "/live") { socket in
                #expect(await socket.connect()?["op"] == "connected")
            }
        }
    }

    @Test("subscribe, then create, update, enter, leave and delete events decided from the query's match before and after")
    func events() async throws {
        try await Fixture.with { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                let clientId = try #require(await socket.connect()?["clientId"])
                let subscribed = try #require(await socket.subscribe(7, "Message", where: ["room": "blue"]))
                #expect(subscribed["op"] == "subscribed" && subscribed["requestId"] == 7 && subscribed["clientId"] == clientId, "\(subscribed)")
                let blue = Fixture.message("m1", ["room": "blue", "text": "hi"])
                fixture.publish(.create, Fixture.message("m0", ["room": "red"]))
                fixture.publish(.create, blue)
                let created = try #require(await socket.next())
                #expect(created["op"] == "create" && created["requestId"] == 7 && created["clientId"] == clientId, "\(created)")
                #expect(created["object"]?["objectId"] == "m1" && created["object"]?["className"] == "Message" && created["object"]?["text"] == "hi")
                #expect(created["original"] == nil)
                var edited = blue
                edited.fields["text"] = "hello"
                fixture.publish(.update, edited, original: blue)
                let updated = try #require(await socket.next())
                #expect(updated["op"] == "update" && updated["object"]?["text"] == "hello" && updated["original"]?["text"] == "hi", "\(updated)")
                var moved = edited
                moved.fields["room"] = "red"
                fixture.publish(.update, moved, original: edited)
                let left = try #require(await socket.next())
                #expect(left["op"] == "leave" && left["object"]?["room"] == "red" && left["original"]?["room"] == "blue", "\(left)")
                fixture.publish(.update, edited, original: moved)
                let entered = try #require(await socket.next())
                #expect(entered["op"] == "enter" && entered["object"]?["room"] == "blue" && entered["original"]?["room"] == "red", "\(entered)")
                fixture.publish(.delete, moved)
                fixture.publish(.delete, edited)
                let deleted = try #require(await socket.next())
                #expect(deleted["op"] == "delete" && deleted["object"]?["objectId"] == "m1" && deleted["original"] == nil, "\(deleted)")
            }
        }
    }

    @Test("keys limit the fields events carry; watch limits the updates (and creates) that are events")
    func keysAndWatch() async throws {
        try await Fixture.with { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                #expect(await socket.subscribe(1, "Message", query: ["keys": ["text"]])?["op"] == "subscribed")
                #expect(await socket.subscribe(2, "Message", query: ["fields": ["room"], "watch": ["text"]])?["op"] == "subscribed")
                let first = Fixture.message("m1", ["room": "blue", "text": "hi", "secret": "s"], acl: .publicReadWrite)
                fixture.publish(.create, first)
                var events: [Int: [String: ParseValue]] = [:]
                for _ in 0..<2 {
                    let event = try #require(await socket.next())
                    events[try #require(event["requestId"]?.intValue)] = event
                }
                let limited = try #require(events[1]?["object"]?.objectValue)
                #expect(Set(limited.keys) == ["text", "objectId", "className", "createdAt", "updatedAt", "ACL"], "\(limited)")
                #expect(Set(try #require(events[2]?["object"]?.objectValue).keys).contains("room"))
                // A change of an unwatched field is an event of subscription 1 only.
                var moved = first
                moved.fields["room"] = "red"
                fixture.publish(.update, moved, original: first)
                #expect(await socket.next()?["requestId"] == 1)
                var edited = moved
                edited.fields["text"] = "hello"
                fixture.publish(.update, edited, original: moved)
                var watched: Set<Int> = []
                for _ in 0..<2 { watched.insert(try #require(await socket.next()?["requestId"]?.intValue)) }
                #expect(watched == [1, 2])
            }
        }
    }

    @Test("update replaces a subscription's query; unsubscribe ends it; unsubscribing an unknown id answers 2")
    func updateAndUnsubscribe() async throws {
        try await Fixture.with { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                let clientId = try #require(await socket.connect()?["clientId"])
                _ = await socket.subscribe(1, "Message", where: ["room": "blue"])
                socket.send(["op": "update", "requestId": 1, "query": ["className": "Message", "where": ["room": "red"]]])
                #expect(await socket.next()?["op"] == "subscribed")
                fixture.publish(.create, Fixture.message("m1", ["room": "blue"]))
                fixture.publish(.create, Fixture.message("m2", ["room": "red"]))
                #expect(await socket.next()?["object"]?["objectId"] == "m2")
                socket.send(["op": "unsubscribe", "requestId": 1])
                let unsubscribed = try #require(await socket.next())
                #expect(unsubscribed["op"] == "unsubscribed" && unsubscribed["requestId"] == 1 && unsubscribed["clientId"] == clientId)
                socket.send(["op": "unsubscribe", "requestId": 1])
                let unknown = try #require(await socket.next())
                #expect(unknown["op"] == "error" && unknown["code"] == 2 && unknown["requestId"] == 1, "\(unknown)")
                // No event reaches an ended subscription: the next message is the one of a new one.
                _ = await socket.subscribe(2, "Message", where: ["room": "red"])
                fixture.publish(.create, Fixture.message("m3", ["room": "red"]))
                #expect(await socket.next()?["requestId"] == 2)
            }
        }
    }

    @Test("only the classes of the app's liveQuery.classNames can be subscribed to")
    func classNames() async throws {
        try await Fixture.with(classNames: ["Message"]) { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                let refused = try #require(await socket.subscribe(1, "Secret"))
                #expect(refused["op"] == "error" && refused["code"] == 119 && refused["requestId"] == 1, "\(refused)")
                #expect(refused["error"]?.stringValue?.contains("liveQuery.classNames") == true)
                #expect(await socket.subscribe(2, "Message")?["op"] == "subscribed")
            }
        }
    }

    @Test("messages that are not requests answer Parse's codes, cheaply, and the connection goes on")
    func hostileMessages() async throws {
        try await Fixture.with { fixture in
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                for text in ["not json", "[1,2]", "{\"op\": 3}", "{}", String(repeating: "[", count: 10_000)] {
                    socket.send(text: text)
                    let answer = try #require(await socket.next())
                    #expect(answer["op"] == "error" && answer["code"] == 1, "\(text.prefix(20)): \(answer)")
                }
                socket.send(["op": "explode"])
                #expect(await socket.next()?["code"] == 3)
                socket.send(["op": "subscribe", "requestId": "one", "query": ["className": "Message", "where": [:]]])
                #expect(await socket.next()?["code"] == 1)
                _ = await socket.connect()
                socket.send(["op": "subscribe", "requestId": 4, "query": ["className": "Message"]])
                let noWhere = try #require(await socket.next())
                #expect(noWhere["code"] == 1 && noWhere["requestId"] == 4, "\(noWhere)")
                #expect(await socket.subscribe(5, "Message", query: ["keys": []])?["code"] == 1)
                #expect(await socket.subscribe(6, "Message")?["op"] == "subscribed")
            }
        }
    }
}
