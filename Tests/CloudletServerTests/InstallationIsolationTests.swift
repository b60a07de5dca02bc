import Cloudlet
import CloudletServer
import CloudletTesting
import HTTPTypes
import NIOCore
import Testing

/// Two apps on one server: app A's keys never see, change or push to app B's installations, and
/// never see B's push jobs.
@Suite("Installation and push isolation")
struct InstallationIsolationTests {
    @Test func oneAppsKeysNeverReachAnothersInstallationsOrPushJobs() async throws {
        try await RateLimitRouteTests.withApps(.off) { a, b in
            let installation = try await b.post("/installations", ["installationId": "b-device", "deviceType": "ios", "deviceToken": "tok-b"])
            let id = try #require(installation["objectId"]?.stringValue)
            let push = try await b.post("/push", ["where": [:], "data": ["alert": "for b"]], master: true)
            let jobId = try #require(push.headers[PushRouteTests.statusIdHeader])

            // A's keys presented as app B are refused before anything runs.
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/installations", nil), (.get, "/installations/\(id)", nil), (.put, "/installations/\(id)", #"{"badge":9}"#),
                (.delete, "/installations/\(id)", nil), (.post, "/push", #"{"where":{},"data":{"alert":"x"}}"#),
                (.get, "/classes/_Installation", nil), (.get, "/classes/_PushStatus/\(jobId)", nil),
            ]
            for (method, path, body) in routes {
                for (key, master) in [("client-a", false), ("master-a", true)] {
                    let reply = try await a.raw(
                        method, path, headers: TenantIsolationTests.headers(app: "b", key: key, master: master),
                        body: body.map { ByteBuffer(string: $0) })
                    Support.expectError(reply, status: 403, code: 119)
                }
            }
            // In app A, with A's master key, B's installation and job do not exist.
            #expect(Support.ids(try await a.get("/installations", master: true)).isEmpty)
            Support.expectError(try await a.get("/installations/\(id)", master: true), status: 404, code: 101)
            Support.expectError(try await a.put("/installations/\(id)", ["badge": 9], master: true), status: 404, code: 101)
            Support.expectError(try await a.get("/classes/_PushStatus/\(jobId)", master: true), status: 404, code: 101)
            // The same installation id in A is a new installation of A's own; B's keeps its token.
            let planted = try await a.post("/installations", ["installationId": "b-device", "deviceType": "ios", "deviceToken": "tok-b"])
            #expect(planted.status == 201)
            #expect(try await b.get("/installations/\(id)", master: true)["deviceToken"] == "tok-b")
            #expect(try await b.get("/installations/\(id)")["badge"] == nil)
            #expect(try await Support.masterCount(b, "_Installation") == 1)
            #expect(try await Support.masterCount(b, "_PushStatus") == 1)
        }
    }
}
