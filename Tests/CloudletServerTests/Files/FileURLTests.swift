import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import HTTPTypes
import NIOCore
import Synchronization
import Testing

/// A `File` value's URL is made by the server from the file's name on every read, never taken from
/// what a client stored, and never from a request's `Host`.
@Suite("File URLs")
struct FileURLTests {
    static let phishing = "https://evil.example/login"

    static func file(_ name: String, url: String = phishing) -> ParseValue {
        ["__type": "File", "name": .string(name), "url": .string(url)]
    }

    @Test(arguments: TestStore.allCases) func aStoredURLIsNeverServedBackOnAnyRead(store: TestStore) async throws {
        let afterHooksSaw = Mutex<[String]>([])
        var hooks = HookRegistry()
        let record: @Sendable (ParseObject) -> Void = { object in afterHooksSaw.withLock { $0.append(JSONWriter.string(.object(object.fields))) } }
        hooks.afterSave("Profiles") { request in record(request.object) }
        hooks.afterDelete("Profiles") { request in record(request.object) }
        hooks.function("pictureURL") { request in
            let id = request.params["id"]?.stringValue ?? ""
            return try await request.store.get("Profiles", id: id)?["picture"]?["url"] ?? .null
        }
        try await FileTestServer.with(hooks: hooks, store: store) { server in
            let (name, url) = try await server.upload("me.png", [1, 2, 3], contentType: "image/png")
            #expect(url == "http://127.0.0.1:1337/parse/files/a/\(name)")
            let id = try await Support.create(server.a, "Profiles", ["picture": Self.file(name), "gallery": [["deep": Self.file(name)]]])
            // An update stores the client's value as it came: reads still rebuild it.
            #expect(try await server.a.put("/classes/Profiles/\(id)", ["banner": Self.file(name)]).status == 200)
            let post = try await Support.create(server.a, "Posts", ["profile": .pointer(className: "Profiles", objectId: id)])

            let got = try await server.a.get("/classes/Profiles/\(id)")
            #expect(got["picture"] == ["__type": "File", "name": .string(name), "url": .string(url)])
            #expect(got["gallery"]?.arrayValue?.first?["deep"]?["url"] == .string(url))
            #expect(got["banner"]?["url"] == .string(url))
            let found = try await server.a.get("/classes/Profiles", query: ["where": ["objectId": .string(id)]])
            #expect(found["results"]?.arrayValue?.first?["banner"]?["url"] == .string(url))
            let included = try await server.a.get("/classes/Posts/\(post)", query: ["include": "profile"])
            #expect(included["profile"]?["picture"]?["url"] == .string(url))
            #expect(try await server.a.post("/functions/pictureURL", ["id": .string(id)])["result"] == .string(url), "a hook's read")
            #expect(try await server.a.delete("/classes/Profiles/\(id)").status == 200)
            let everything = "\(got.body)\(found.body)\(included.body)"
            #expect(!everything.contains("evil.example"))
            let seen = afterHooksSaw.withLock { $0 }
            #expect(seen.count == 3, "after hooks of the create, the update and the delete")
            #expect(seen.allSatisfy { $0.contains(url) && !$0.contains("evil.example") }, "\(seen)")
        }
    }

    @Test(arguments: TestStore.allCases) func fileURLsNeverComeFromTheHostHeader(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            let reply = try await server.a.raw(
                .post, "/files/a.txt",
                headers: [
                    HTTPField.Name("X-Parse-Application-Id")!: "a", HTTPField.Name("X-Parse-REST-API-Key")!: "client-a",
                    .contentType: "text/plain", HTTPField.Name("Host")!: "evil.example",
                ],
                body: ByteBuffer(string: "hi"))
            #expect(reply.status == 201)
            #expect(reply["url"]?.stringValue?.hasPrefix("http://127.0.0.1:1337/parse/files/a/") == true, "\(reply.body)")
            #expect(reply.headers[.location] == reply["url"]?.stringValue)
        }
        try await FileTestServer.with(adjust: { $0.publicURL = "https://api.example.com/" }, store: store) { server in
            let (name, url) = try await server.upload("b.txt", [1])
            #expect(url == "https://api.example.com/parse/files/a/\(name)")
        }
    }

    @Test func withoutAPublicURLTheOriginIsTheListeningHostAndTheBoundPort() throws {
        let named = ServerOrigin(publicURL: nil, host: "files.lan", port: 0)
        named.listening(on: try SocketAddress(ipAddress: "10.0.0.7", port: 40123))
        #expect(named.value == "http://files.lan:40123", "the host given, the port bound")
        #expect(ServerOrigin(publicURL: nil, host: "0.0.0.0", port: 1337).value == "http://127.0.0.1:1337")
        #expect(ServerOrigin(publicURL: nil, host: "::", port: 1337).value == "http://[::1]:1337")
        #expect(ServerOrigin(publicURL: nil, host: "fe80::1", port: 80).value == "http://[fe80::1]:80")
        let fixed = ServerOrigin(publicURL: "https://api.example.com/", host: "0.0.0.0", port: 0)
        fixed.listening(on: try SocketAddress(ipAddress: "127.0.0.1", port: 5000))
        #expect(fixed.value == "https://api.example.com")
    }
}
