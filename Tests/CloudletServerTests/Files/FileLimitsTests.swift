import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Testing

/// The file routes pass the same middleware as every route: the app's rate limits and the metrics.
@Suite("File routes under rate limits and metrics")
struct FileLimitsTests {
    @Test(arguments: TestStore.allCases) func uploadsAndDownloadsCountAgainstTheAppsQuotaAndOnlyItsOwn(store: TestStore) async throws {
        let policy = RateLimitPolicy(quota: .init(count: 3, window: .seconds(60)))
        try await FileTestServer.with(policy: policy, store: store) { server in
            let (name, url) = try await server.upload("one.txt", [1])
            #expect(try await server.a.download(url).status == 200)
            #expect(try await server.a.download(url).status == 200)
            let refused = try await server.a.download(url)
            #expect(refused.status == 429, "the URL alone is still the app's request")
            #expect(try JSONParser.parse(refused.bytes)["code"] == 155)
            Support.expectError(try await server.a.upload("two.txt", [2]), status: 429, code: 155)
            Support.expectError(try await server.a.delete("/files/\(name)", master: true), status: 429, code: 155)
            #expect(try await server.b.upload("two.txt", [2]).status == 201, "app b has its own quota")
        }
    }

    @Test func fileRequestsAreCountedByAppAndRoute() async throws {
        try await ObservedServer.with { server in
            let upload = try await server.a.upload("counted.txt", [1, 2, 3])
            #expect(upload.status == 201)
            let url = try #require(upload["url"]?.stringValue)
            #expect(try await server.a.download(url).status == 200)
            #expect(try await server.a.download("/parse/files/a/0123456789abcdef0123456789abcdef_none.txt").status == 404)
            let scrape = try await server.scrape()
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "a", "route": "/parse/files/{id}", "status": "201"]) == 1)
            let download = "/parse/files/{id}/{name}"
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "a", "route": download, "status": "200"]) == 1)
            #expect(scrape.value("cloudlet_http_requests_total", ["app": "a", "route": download, "status": "404"]) == 1)
        }
    }
}
