import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import Testing

/// `GET /serverInfo`, `POST /events/:eventName` and the read-only `/hooks` routes through the router.
@Suite("Server info, analytics and hooks routes")
struct ServerInfoRouteTests {
    @Test func serverInfoAnswersTheMasterKeyWithCloudletsVersionAndFeatures() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.get("/serverInfo"), status: 403, code: 119)
            let reply = try await client.get("/serverInfo", master: true)
            #expect(reply.status == 200)
            #expect(reply["parseServerVersion"] == .string(CloudletVersion.current))
            let features = try #require(reply["features"]?.objectValue)
            #expect(Set(features.keys) == ["globalConfig", "hooks", "cloudCode", "logs", "push", "schemas", "settings"])
            #expect(features["globalConfig"] == ["create": true, "read": true, "update": true, "delete": true])
            #expect(features["hooks"] == ["create": false, "read": true, "update": false, "delete": false])
            #expect(features["cloudCode"] == ["jobs": true])
            #expect(features["logs"]?.objectValue?.values.allSatisfy { $0 == false } == true)
            #expect(
                features["push"] == ["immediatePush": true, "scheduledPush": true, "storedPushData": true, "pushAudiences": false, "localization": false])
            #expect(features["settings"] == ["securityCheck": false])
            // Each schema feature is what the route table serves: true once `/schemas` answers.
            let schemas = try #require(features["schemas"]?.objectValue)
            let addClass = try await client.post("/schemas/Probe", [:], master: true)
            #expect(schemas["addClass"] == .bool(addClass["code"] != 108), "\(addClass.body)")
            let purge = try await client.delete("/purge/Probe", master: true)
            #expect(schemas["clearAllDataFromClass"] == .bool(purge["code"] != 108), "\(purge.body)")
            #expect(schemas["exportClass"] == false)
        }
    }

    @Test func eventsAreAcceptedWithAnyKeyAndAnswerAnEmptyObject() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            let events: [(String, [String: ParseValue])] = [
                ("/events/AppOpened", [:]), ("/events/Search", ["dimensions": ["category": "books"], "at": .date(.now)]),
            ]
            for (path, body) in events {
                let reply = try await client.post(path, body)
                #expect(reply.status == 200 && reply.body == [:], "\(reply.body)")
            }
            #expect(try await client.post("/events/AppOpened", [:], master: true).body == [:])
            #expect(try await client.get("/events/AppOpened").status == 405)
        }
    }

    @Test func eventsAreCountedPerAppAndEventWithTheNamesOfAnAppCapped() async throws {
        try await ObservedServer.with { server in
            for _ in 0..<3 { _ = try await server.a.post("/events/AppOpened") }
            _ = try await server.b.post("/events/AppOpened")
            _ = try await server.b.post("/events/Signed%20Up")
            let cap = CloudletMetrics.maximumAnalyticsEventNames
            for index in 0..<(cap + 20) {
                #expect(try await server.a.post("/events/Hostile\(index)").status == 200)
            }
            #expect(try await server.a.post("/events/" + String(repeating: "L", count: 200)).status == 200)
            let scrape = try await server.scrape()
            let events = "cloudlet_analytics_events_total"
            #expect(scrape.value(events, ["app": "a", "event": "AppOpened"]) == 3)
            #expect(scrape.value(events, ["app": "b", "event": "AppOpened"]) == 1)
            #expect(scrape.value(events, ["app": "b", "event": "Signed Up"]) == 1)
            #expect(scrape.series(events, ["app": "a"]).count == cap + 1, "\(cap) names and other")
            #expect(scrape.value(events, ["app": "a", "event": "other"]) == 22, "the 21 names past the cap and the long one")
            #expect(scrape.series(events, ["app": "b"]).count == 2, "one app's names do not use another's cap")
        }
    }

    /// Hooks of every kind the `/hooks` routes list.
    static var registry: HookRegistry {
        var hooks = HookRegistry()
        hooks.function("hello") { _ in "hi" }
        hooks.function("adminReport") { _ in nil }
        hooks.beforeSave("Posts") { _ in }
        hooks.afterDelete("Posts") { _ in }
        hooks.afterFind("Comments") { _ in }
        hooks.beforeLogin { _ in }
        hooks.beforeSaveFile { _ in }
        hooks.job("nightly", timeLimit: .seconds(30)) { _ in }
        return hooks
    }

    @Test func hooksAreListedInParsesShapeForTheMasterKeyOnly() async throws {
        try await ParseTestClient.withRouter(registry: Self.registry) { client in
            for path in ["/hooks/functions", "/hooks/triggers", "/hooks/functions/hello", "/hooks/triggers/Posts/beforeSave"] {
                Support.expectError(try await client.get(path), status: 403, code: 119)
            }
            #expect(try await client.get("/hooks/functions", master: true).body == [["functionName": "adminReport"], ["functionName": "hello"]])
            let triggers = try await client.get("/hooks/triggers", master: true)
            #expect(
                triggers.body == [
                    ["className": "@File", "triggerName": "beforeSave"], ["className": "Comments", "triggerName": "afterFind"],
                    ["className": "Posts", "triggerName": "afterDelete"], ["className": "Posts", "triggerName": "beforeSave"],
                    ["className": "_User", "triggerName": "beforeLogin"],
                ], "\(triggers.body)")
            #expect(try await client.get("/hooks/functions/hello", master: true).body == ["functionName": "hello"])
            #expect(try await client.get("/hooks/triggers/Posts/beforeSave", master: true).body == ["className": "Posts", "triggerName": "beforeSave"])
            let missingFunction = try await client.get("/hooks/functions/nightly", master: true)
            Support.expectError(missingFunction, status: 400, code: 143)
            #expect(missingFunction["error"] == "no function named: nightly is defined")
            let missingTrigger = try await client.get("/hooks/triggers/Posts/afterSave", master: true)
            Support.expectError(missingTrigger, status: 400, code: 143)
            #expect(missingTrigger["error"] == "class Posts does not exist")
        }
    }

    @Test func hooksCannotBeWrittenThroughTheAPI() async throws {
        try await ParseTestClient.withRouter(registry: Self.registry) { client in
            let writes: [(HTTPRequest.Method, String, ParseValue)] = [
                (.post, "/hooks/functions", ["functionName": "evil", "url": "https://attacker.example/hook"]),
                (.post, "/hooks/triggers", ["className": "Posts", "triggerName": "beforeSave", "url": "https://attacker.example/hook"]),
                (.put, "/hooks/functions/hello", ["url": "https://attacker.example/hook"]),
                (.put, "/hooks/triggers/Posts/beforeSave", ["__op": "Delete"]),
            ]
            for (method, path, body) in writes {
                Support.expectError(try await client.request(method, path, body: body), status: 403, code: 119)
                Support.expectError(try await client.request(method, path, body: body, master: true), status: 400, code: 143)
            }
            #expect(try await client.delete("/hooks/functions/hello", master: true).status == 405)
            #expect(try await client.get("/hooks/functions", master: true).body.arrayValue?.count == 2, "nothing changed")
            #expect(try await client.post("/functions/hello")["result"] == "hi")
        }
    }
}
