import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import NIOCore
import Testing

@Suite("Authentication: app id, client and master keys, sessions, keys in the body, health")
struct AuthTests {
    /// A create as a client with exactly `headers` (plus a JSON content type).
    private static func create(_ client: ParseTestClient, headers: HTTPFields) async throws -> ParseTestClient.Reply {
        var headers = headers
        headers[.contentType] = "application/json"
        return try await client.raw(.post, "/classes/Posts", headers: headers, body: ByteBuffer(string: #"{"title":"x"}"#))
    }

    @Test("an unknown application id answers 403", arguments: TestStore.allCases)
    func unknownAppId(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.appIdHeader] = "other"
            headers[Support.restKeyHeader] = "client-key"
            Support.expectError(try await Self.create(client, headers: headers), status: 403, code: 119)
            var master: HTTPFields = [:]
            master[Support.appIdHeader] = "other"
            master[Support.masterKeyHeader] = "master-key"
            Support.expectError(try await Self.create(client, headers: master), status: 403, code: 119)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a missing application id answers 403", arguments: TestStore.allCases)
    func missingAppId(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.restKeyHeader] = "client-key"
            Support.expectError(try await Self.create(client, headers: headers), status: 403, code: 119)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a missing key answers 403", arguments: TestStore.allCases)
    func missingKey(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.appIdHeader] = "test"
            Support.expectError(try await Self.create(client, headers: headers), status: 403, code: 119)
            let read = try await client.raw(.get, "/classes/Posts", headers: headers, body: nil)
            Support.expectError(read, status: 403, code: 119)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a wrong client key answers 403", arguments: ["wrong", "client-kez", "client-keyy", "CLIENT-KEY", "", "master-key"])
    func wrongClientKey(key: String) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.appIdHeader] = "test"
            headers[Support.restKeyHeader] = key
            Support.expectError(try await Self.create(client, headers: headers), status: 403, code: 119)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("a wrong master key answers 403, even alongside a right client key", arguments: TestStore.allCases)
    func wrongMasterKey(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.appIdHeader] = "test"
            headers[Support.masterKeyHeader] = "client-key"
            Support.expectError(try await Self.create(client, headers: headers), status: 403, code: 119)
            headers[Support.restKeyHeader] = "client-key"
            Support.expectError(try await Self.create(client, headers: headers), status: 403, code: 119)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("every client key header is accepted", arguments: ["X-Parse-REST-API-Key", "X-Parse-Client-Key", "X-Parse-Javascript-Key"])
    func clientKeyHeaders(name: String) async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.appIdHeader] = "test"
            headers[HTTPField.Name(name)!] = "client-key"
            let reply = try await Self.create(client, headers: headers)
            #expect(reply.status == 201, "\(reply.body)")
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("the master key alone is enough", arguments: TestStore.allCases)
    func masterKeyAlone(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[Support.appIdHeader] = "test"
            headers[Support.masterKeyHeader] = "master-key"
            let reply = try await Self.create(client, headers: headers)
            #expect(reply.status == 201)
        }
    }

    @Test("a session token answers 209, since sessions do not exist yet, and nothing is written", arguments: TestStore.allCases)
    func sessionToken(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers = Support.clientHeaders()
            headers[Support.sessionTokenHeader] = "r:abc"
            let reply = try await Self.create(client, headers: headers)
            Support.expectError(reply, status: 400, code: 209)
            #expect(try await Support.masterCount(client, "Posts") == 0)
            let read = try await client.request(.get, "/classes/Posts", headers: headers)
            Support.expectError(read, status: 400, code: 209)
            let inBody = try await Support.send(
                client, .post, "/classes/Posts", text: #"{"title":"x","_SessionToken":"r:abc"}"#)
            Support.expectError(inBody, status: 400, code: 209)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("keys and the app id may come in the JSON body, as the JavaScript SDK sends them", arguments: TestStore.allCases)
    func keysInBody(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var headers: HTTPFields = [:]
            headers[.contentType] = "text/plain"
            let create = try await client.raw(
                .post, "/classes/Posts", headers: headers,
                body: ByteBuffer(string: #"{"title":"from js","score":7,"_ApplicationId":"test","_JavaScriptKey":"client-key","_ClientVersion":"js5.0.0","_InstallationId":"inst-1"}"#))
            #expect(create.status == 201, "\(create.body)")
            let id = try #require(create["objectId"]?.stringValue)
            let fetched = try await client.get("/classes/Posts/\(id)")
            #expect(fetched["title"] == "from js")
            // The transport members are not stored as fields.
            for member in ["_ApplicationId", "_JavaScriptKey", "_ClientVersion", "_InstallationId"] {
                #expect(fetched[member] == nil, "\(member) was stored")
            }

            let wrong = try await client.raw(
                .post, "/classes/Posts", headers: headers,
                body: ByteBuffer(string: #"{"title":"x","_ApplicationId":"test","_JavaScriptKey":"nope"}"#))
            Support.expectError(wrong, status: 403, code: 119)
            let master = try await client.raw(
                .post, "/classes/Posts", headers: headers,
                body: ByteBuffer(string: #"{"title":"m","_ApplicationId":"test","_MasterKey":"master-key"}"#))
            #expect(master.status == 201)
            let wrongMaster = try await client.raw(
                .post, "/classes/Posts", headers: headers,
                body: ByteBuffer(string: #"{"title":"x","_ApplicationId":"test","_MasterKey":"client-key"}"#))
            Support.expectError(wrongMaster, status: 403, code: 119)
            #expect(try await Support.masterCount(client, "Posts") == 2)
        }
    }

    @Test("_method GET on POST /classes/X runs a query, with where as JSON in the body", arguments: TestStore.allCases)
    func methodOverrideQuery(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Posts", ["title": "a", "score": 1])
            try await Support.create(client, "Posts", ["title": "b", "score": 5])
            try await Support.create(client, "Posts", ["title": "c", "score": 9])
            var headers: HTTPFields = [:]
            headers[.contentType] = "text/plain"
            let body = #"{"where":{"score":{"$gt":2}},"order":"-score","limit":5,"count":1,"_method":"GET","_ApplicationId":"test","_JavaScriptKey":"client-key"}"#
            let reply = try await client.raw(.post, "/classes/Posts", headers: headers, body: ByteBuffer(string: body))
            #expect(reply.status == 200, "\(reply.body)")
            #expect(Support.values(reply, "title") == ["c", "b"])
            #expect(reply["count"] == 2)
            // Nothing was created by the POST.
            #expect(try await Support.masterCount(client, "Posts") == 3)
        }
    }

    @Test("_method GET on POST /classes/X/id fetches the object, and _method DELETE deletes it", arguments: TestStore.allCases)
    func methodOverrideObject(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Posts", ["title": "a"])
            var headers: HTTPFields = [:]
            headers[.contentType] = "text/plain"
            let get = try await client.raw(
                .post, "/classes/Posts/\(id)", headers: headers,
                body: ByteBuffer(string: #"{"_method":"GET","_ApplicationId":"test","_JavaScriptKey":"client-key"}"#))
            #expect(get.status == 200, "\(get.body)")
            #expect(get["title"] == "a")
            let put = try await client.raw(
                .post, "/classes/Posts/\(id)", headers: headers,
                body: ByteBuffer(string: #"{"title":"b","_method":"PUT","_ApplicationId":"test","_JavaScriptKey":"client-key"}"#))
            #expect(put.status == 200, "\(put.body)")
            #expect(try await client.get("/classes/Posts/\(id)")["title"] == "b")
            let delete = try await client.raw(
                .post, "/classes/Posts/\(id)", headers: headers,
                body: ByteBuffer(string: #"{"_method":"DELETE","_ApplicationId":"test","_JavaScriptKey":"client-key"}"#))
            #expect(delete.status == 200, "\(delete.body)")
            Support.expectError(try await client.get("/classes/Posts/\(id)"), status: 404, code: 101)
        }
    }

    @Test("GET and POST /parse/health answer 200 {\"status\":\"ok\"} without keys", arguments: TestStore.allCases)
    func health(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let get = try await client.raw(.get, "/health", headers: [:], body: nil)
            #expect(get.status == 200)
            #expect(get.body == ["status": "ok"])
            let post = try await client.raw(.post, "/health", headers: [:], body: nil)
            #expect(post.status == 200)
            #expect(post.body == ["status": "ok"])
            let postWithBody = try await client.raw(.post, "/health", headers: [:], body: ByteBuffer(string: "{bad"))
            #expect(postWithBody.status == 200)
            #expect(postWithBody.body == ["status": "ok"])
        }
    }

    @Test("success bodies never carry both code and error; error bodies always do", arguments: TestStore.allCases)
    func successShape(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/classes/Posts", ["title": "x", "n": 1])
            Support.expectNotError(created)
            let id = try #require(created["objectId"]?.stringValue)
            Support.expectNotError(try await client.get("/classes/Posts/\(id)"))
            Support.expectNotError(try await client.get("/classes/Posts"))
            Support.expectNotError(try await client.get("/classes/Posts", query: ["count": 1]))
            Support.expectNotError(try await client.put("/classes/Posts/\(id)", ["n": ["__op": "Increment", "amount": 1]]))
            Support.expectNotError(try await client.post("/batch", ["requests": []]))
            Support.expectNotError(try await client.delete("/classes/Posts/\(id)"))
            Support.expectNotError(try await client.raw(.get, "/health", headers: [:], body: nil))
        }
    }

    @Test("responses are JSON", arguments: TestStore.allCases)
    func contentType(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/classes/Posts", ["title": "x"])
            #expect(created.headers[.contentType]?.hasPrefix("application/json") == true)
            let failed = try await client.get("/classes/Posts/nosuchid00")
            #expect(failed.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }
}
