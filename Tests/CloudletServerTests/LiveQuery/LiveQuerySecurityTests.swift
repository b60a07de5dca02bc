import Cloudlet
import CloudletRuntime
import CloudletServer
import CloudletServerTesting
import Foundation
import Testing

/// Every LiveQuery event is checked against its subscriber's read access as a query of theirs
/// would be: the object's ACL with the user's id and roles, the class-level permissions (pointer
/// permissions and `requiresAuthentication` among them) and the protected fields; an object that
/// stops or starts being readable is a `leave` or an `enter`, and the master key sees all. On both
/// stores, whose sessions, roles and schemas the checks read.
@Suite("LiveQuery security")
struct LiveQuerySecurityTests {
    typealias Fixture = LiveQueryFixture

    /// The requestIds of the next `count` messages of `socket`, with their ops.
    static func next(_ socket: LiveQuerySocket, _ count: Int = 1) async -> [String] {
        var seen: [String] = []
        for _ in 0..<count {
            guard let message = await socket.next() else { break }
            seen.append("\(message["op"]?.stringValue ?? "?"):\(message["object"]?["objectId"]?.stringValue ?? "-")")
        }
        return seen
    }

    @Test("ACL: each subscriber gets the events of the objects it may read, by user id or role; the master key all", arguments: TestStore.allCases)
    func acl(_ store: TestStore) async throws {
        try await Fixture.with(store) { fixture in
            let ada = try await fixture.signUp("ada"), bob = try await fixture.signUp("bob")
            let role = try await fixture.client.post(
                "/roles", ["name": "Editors", "ACL": ["*": ["read": true]], "users": ["__op": "AddRelation", "objects": [.pointer(className: "_User", objectId: bob.id)]]],
                master: true)
            #expect(role.status == 201, "\(role.body)")
            try await LiveQuerySocket.with(port: fixture.port) { adaSocket in
                try await LiveQuerySocket.with(port: fixture.port) { bobSocket in
                    try await LiveQuerySocket.with(port: fixture.port) { anonymous in
                        try await LiveQuerySocket.with(port: fixture.port) { master in
                            #expect(await adaSocket.connect(sessionToken: ada.token)?["op"] == "connected")
                            #expect(await bobSocket.connect()?["op"] == "connected")
                            #expect(await anonymous.connect()?["op"] == "connected")
                            #expect(await master.connect(keys: ["masterKey": "master-a"])?["op"] == "connected")
                            #expect(await adaSocket.subscribe(1, "Message")?["op"] == "subscribed")
                            // Bob's subscription names his session itself.
                            #expect(await bobSocket.subscribe(1, "Message", sessionToken: bob.token)?["op"] == "subscribed")
                            #expect(await anonymous.subscribe(1, "Message")?["op"] == "subscribed")
                            #expect(await master.subscribe(1, "Message")?["op"] == "subscribed")
                            fixture.publish(.create, Fixture.message("ada", ["n": 1], acl: .only(readers: [ada.id], writers: [ada.id])))
                            fixture.publish(.create, Fixture.message("editors", ["n": 2], acl: .only(readers: ["role:Editors"], writers: [])))
                            fixture.publish(.create, Fixture.message("public", ["n": 3], acl: .publicReadWrite))
                            #expect(await Self.next(adaSocket, 2) == ["create:ada", "create:public"])
                            #expect(await Self.next(bobSocket, 2) == ["create:editors", "create:public"])
                            #expect(await Self.next(anonymous) == ["create:public"])
                            #expect(await Self.next(master, 3) == ["create:ada", "create:editors", "create:public"])
                        }
                    }
                }
            }
        }
    }

    @Test("an object that stops being readable is a leave, one that becomes readable an enter; never an event for what is unreadable")
    func enterAndLeave() async throws {
        try await Fixture.with { fixture in
            let ada = try await fixture.signUp("ada")
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect(sessionToken: ada.token)
                _ = await socket.subscribe(1, "Message")
                let hidden = Fixture.message("m1", ["n": 1], acl: .only(readers: [], writers: []))
                var shown = hidden
                shown.acl = .only(readers: [ada.id], writers: [])
                var shownChanged = shown
                shownChanged.fields["n"] = 2
                fixture.publish(.create, hidden)
                fixture.publish(.update, shown, original: hidden)
                fixture.publish(.update, shownChanged, original: shown)
                fixture.publish(.update, hidden, original: shownChanged)
                fixture.publish(.update, hidden, original: hidden)
                fixture.publish(.delete, hidden)
                fixture.publish(.create, Fixture.message("m2", ["n": 3]))
                #expect(await Self.next(socket, 4) == ["enter:m1", "update:m1", "leave:m1", "create:m2"])
            }
        }
    }

    @Test("class-level permissions: refused at subscribe as a query would be; pointer permissions limit events to the objects that point at the user", arguments: TestStore.allCases)
    func classLevelPermissions(_ store: TestStore) async throws {
        try await Fixture.with(store, classNames: ["Message", "Vault", "Notes"]) { fixture in
            let ada = try await fixture.signUp("ada"), bob = try await fixture.signUp("bob")
            try await fixture.schema("Vault", fields: ["n": ["type": "Number"]], clp: ["find": ["requiresAuthentication": true], "get": [ada.id: true]])
            try await fixture.schema(
                "Notes", fields: ["owner": ["type": "Pointer", "targetClass": "_User"]],
                clp: ["find": [:], "get": [:], "readUserFields": ["owner"]])
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                let refused = try #require(await socket.subscribe(1, "Vault"))
                #expect(refused["code"] == 101 && refused["requestId"] == 1, "\(refused)")
                #expect(await socket.subscribe(2, "Vault", where: ["objectId": "v1"])?["code"] == 119, "get is ada's only")
                #expect(await socket.subscribe(3, "Vault", sessionToken: bob.token)?["op"] == "subscribed")
                #expect(await socket.subscribe(4, "Vault", where: ["objectId": "v1"], sessionToken: ada.token)?["op"] == "subscribed")
                #expect(await socket.subscribe(5, "Notes", sessionToken: ada.token)?["op"] == "subscribed")
                fixture.publish(.create, ParseObject(className: "Vault", objectId: "v1", fields: ["n": 1]))
                var seen: Set<Int> = []
                for _ in 0..<2 { seen.insert(try #require(await socket.next()?["requestId"]?.intValue)) }
                #expect(seen == [3, 4])
                let user = { (id: String) in ParseValue.pointer(className: "_User", objectId: id) }
                fixture.publish(.create, ParseObject(className: "Notes", objectId: "bobs", fields: ["owner": user(bob.id)]))
                fixture.publish(.create, ParseObject(className: "Notes", objectId: "adas", fields: ["owner": user(ada.id)]))
                let note = try #require(await socket.next())
                #expect(note["requestId"] == 5 && note["object"]?["objectId"] == "adas", "\(note)")
            }
        }
    }

    @Test("protected fields are left out of events, and cannot be queried; the master key sees them", arguments: TestStore.allCases)
    func protectedFields(_ store: TestStore) async throws {
        try await Fixture.with(store) { fixture in
            try await fixture.schema(
                "Message", fields: ["text": ["type": "String"], "phone": ["type": "String"]],
                clp: ["find": ["*": true], "get": ["*": true], "protectedFields": ["*": ["phone"]]])
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                try await LiveQuerySocket.with(port: fixture.port) { master in
                    _ = await socket.connect()
                    _ = await master.connect(keys: ["masterKey": "master-a"])
                    let refused = try #require(await socket.subscribe(1, "Message", where: ["phone": "555"]))
                    #expect(refused["code"] == 119 && refused["requestId"] == 1, "\(refused)")
                    _ = await socket.subscribe(2, "Message")
                    _ = await master.subscribe(1, "Message")
                    let first = Fixture.message("m1", ["text": "hi", "phone": "555"])
                    var second = first
                    second.fields["text"] = "hello"
                    fixture.publish(.create, first)
                    fixture.publish(.update, second, original: first)
                    let created = try #require(await socket.next()), updated = try #require(await socket.next())
                    #expect(created["object"]?["text"] == "hi" && created["object"]?["phone"] == nil, "\(created)")
                    #expect(updated["object"]?["phone"] == nil && updated["original"]?["phone"] == nil && updated["original"]?["text"] == "hi")
                    #expect(await master.next()?["object"]?["phone"] == "555")
                }
            }
        }
    }

    @Test("a subscription whose session ended (logout) gets no more events: it ends, and the client is told with 209", arguments: TestStore.allCases)
    func sessionEnds(_ store: TestStore) async throws {
        try await Fixture.with(store) { fixture in
            let ada = try await fixture.signUp("ada")
            try await LiveQuerySocket.with(port: fixture.port) { socket in
                _ = await socket.connect()
                _ = await socket.subscribe(1, "Message", sessionToken: ada.token)
                _ = await socket.subscribe(2, "Message")
                let privateMessage = { (id: String) in Fixture.message(id, [:], acl: .only(readers: [ada.id], writers: [])) }
                fixture.publish(.create, privateMessage("m1"))
                #expect(await socket.next()?["object"]?["objectId"] == "m1")
                #expect(try await fixture.client.post("/logout", sessionToken: ada.token).status == 200)
                fixture.publish(.create, privateMessage("m2"))
                let ended = try #require(await socket.next())
                #expect(ended["op"] == "error" && ended["code"] == 209 && ended["requestId"] == 1, "\(ended)")
                fixture.publish(.create, Fixture.message("m3", [:]))
                #expect(await socket.next()?["requestId"] == 2, "subscription 1 is gone: only 2 gets the public object")
            }
        }
    }
}
