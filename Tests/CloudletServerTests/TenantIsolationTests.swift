import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import HTTPTypes
import NIOCore
import Testing

/// Two apps on one server: app A's keys and sessions never read or write app B's objects, users,
/// push jobs or functions, through any route.
@Suite("Tenant isolation")
struct TenantIsolationTests {
    /// Headers naming app `appId` with `key` as the client key (or the master key).
    static func headers(app appId: String, key: String, master: Bool = false, session: String? = nil) -> HTTPFields {
        var headers: HTTPFields = [Support.appIdHeader: appId, .contentType: "application/json"]
        headers[master ? Support.masterKeyHeader : Support.restKeyHeader] = key
        if let session { headers[Support.sessionTokenHeader] = session }
        return headers
    }

    @Test func oneAppsKeysAndSessionsNeverReachAnother() async throws {
        var hooks = HookRegistry()
        hooks.function("secret") { request in .string("secret of \(request.context.appId)") }
        try await RateLimitRouteTests.withApps(.off, hooks: hooks) { a, b in
            let objectId = try await Support.create(b, "Notes", ["text": "b's note"])
            let signup = try await b.post("/users", ["username": "bea", "password": "pw", "email": "bea@example.com"])
            let bSession = try #require(signup["sessionToken"]?.stringValue)
            let aSignup = try await a.post("/users", ["username": "al", "password": "pw"])
            let aSession = try #require(aSignup["sessionToken"]?.stringValue)
            _ = try await b.post("/classes/_PushStatus", ["status": "pending"], master: true)

            // A's client key and A's master key, presented as app B: refused before anything runs.
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/classes/Notes", nil), (.get, "/classes/Notes/\(objectId)", nil), (.put, "/classes/Notes/\(objectId)", "{}"),
                (.delete, "/classes/Notes/\(objectId)", nil), (.post, "/classes/Notes", #"{"text":"planted"}"#),
                (.get, "/users", nil), (.get, "/users/me", nil), (.get, "/classes/_PushStatus", nil),
                (.post, "/functions/secret", "{}"), (.post, "/login", #"{"username":"bea","password":"pw"}"#),
                (.post, "/batch", #"{"requests":[{"method":"GET","path":"/parse/classes/Notes"}]}"#),
            ]
            for (method, path, body) in routes {
                for (key, master) in [("client-a", false), ("master-a", true)] {
                    let reply = try await a.raw(
                        method, path, headers: Self.headers(app: "b", key: key, master: master), body: body.map { ByteBuffer(string: $0) })
                    Support.expectError(reply, status: 403, code: 119)
                }
            }
            // The JavaScript SDK's body form, naming app B with A's key.
            let bodyForm = try await a.raw(
                .post, "/classes/Notes", headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: #"{"_ApplicationId":"b","_JavaScriptKey":"client-a","_method":"GET"}"#))
            Support.expectError(bodyForm, status: 403, code: 119)

            // A's session with A's keys at B's data: B's objects and users do not exist in A.
            Support.expectError(try await a.get("/classes/Notes/\(objectId)", sessionToken: aSession), status: 404, code: 101)
            #expect(Support.ids(try await a.get("/classes/Notes", master: true)).isEmpty)
            Support.expectError(try await a.post("/login", ["username": "bea", "password": "pw"]), status: 404, code: 101)
            #expect(try await a.get("/classes/_PushStatus", master: true)["results"]?.arrayValue?.isEmpty == true)
            // B's session presented to app A is no session there; A's to app B neither.
            Support.expectError(try await a.get("/users/me", sessionToken: bSession), status: 400, code: 209)
            Support.expectError(try await b.get("/users/me", sessionToken: aSession), status: 400, code: 209)
            // Each app's function runs as that app.
            #expect(try await a.post("/functions/secret")["result"] == "secret of a")

            // B's data is as B left it.
            let note = try await b.get("/classes/Notes/\(objectId)")
            #expect(note["text"] == "b's note")
            #expect(try await Support.masterCount(b, "Notes") == 1)
            #expect(try await Support.masterCount(b, "_User") == 1)
        }
    }
}
