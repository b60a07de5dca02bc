import Cloudlet
import CloudletRuntime
import CloudletServerTesting
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// `GET /config` and `PUT /config` through the router: Parse's `Parse.Config`.
@Suite("Config routes")
struct ConfigRouteTests {
    /// Values of each Parse type, as Parse encodes them.
    static let typedParams: [String: ParseValue] = [
        "welcome": "hi", "limit": 3, "flags": ["a", 1, true], "nested": ["deep": ["x": 1]],
        "launch": .date(Date(timeIntervalSince1970: 1_767_225_600)), "owner": .pointer(className: "_User", objectId: "u1"),
        "icon": ["__type": "File", "name": "icon.png", "url": "https://cdn.example.com/icon.png"],
        "office": .geoPoint(latitude: 52.52, longitude: 13.4), "secret": "s3cr3t",
    ]

    @Test(arguments: TestStore.allCases) func aNewAppHasAnEmptyConfig(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for master in [false, true] {
                let reply = try await client.get("/config", master: master)
                #expect(reply.status == 200)
                #expect(reply.body == ["params": [:]])
            }
        }
    }

    @Test(arguments: TestStore.allCases) func clientsReadAllButTheMasterKeyOnlyParamsAndTheMasterReadsAll(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let put = try await client.put("/config", ["params": .object(Self.typedParams), "masterKeyOnly": ["secret": true, "limit": false]], master: true)
            #expect(put.status == 200 && put.body == ["result": true], "\(put.body)")

            let master = try await client.get("/config", master: true)
            #expect(master["params"] == .object(Self.typedParams))
            var flags = Self.typedParams.mapValues { _ in ParseValue.bool(false) }
            flags["secret"] = true
            #expect(master["masterKeyOnly"] == .object(flags))

            let anonymous = try await client.get("/config")
            var visible = Self.typedParams
            visible["secret"] = nil
            #expect(anonymous["params"] == .object(visible))
            #expect(anonymous["masterKeyOnly"]?.objectValue?["secret"] == nil)
            #expect(anonymous["masterKeyOnly"]?.objectValue?.values.allSatisfy { $0 == false } == true)

            let session = try #require(try await client.post("/users", ["username": "ada", "password": "pw"])["sessionToken"]?.stringValue)
            #expect(try await client.get("/config", sessionToken: session)["params"] == .object(visible), "a user is not the master")
        }
    }

    @Test(arguments: TestStore.allCases) func onlyTheMasterKeyWritesTheConfig(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await client.put("/config", ["params": ["a": 1]], master: true)
            let session = try #require(try await client.post("/users", ["username": "ada", "password": "pw"])["sessionToken"]?.stringValue)
            Support.expectError(try await client.put("/config", ["params": ["a": 2]]), status: 403, code: 119)
            Support.expectError(try await client.put("/config", ["params": ["a": 2]], sessionToken: session), status: 403, code: 119)
            Support.expectError(try await client.put("/config", ["params": "not checked before the key"]), status: 403, code: 119)
            #expect(try await client.get("/config", master: true)["params"] == ["a": 1])
        }
    }

    @Test(arguments: TestStore.allCases) func updatesMergeAndApplyFieldOperationsAsParseDoes(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await client.put(
                "/config", ["params": ["a": 1, "b": 2, "c": "keep", "list": ["x"]], "masterKeyOnly": ["b": true, "c": true]], master: true)
            let put = try await client.put(
                "/config",
                [
                    "params": [
                        "a": ["__op": "Increment", "amount": 2], "b": ["__op": "Delete"], "d": "new",
                        "list": ["__op": "AddUnique", "objects": ["x", "y"]], "gone": ["__op": "Delete"],
                    ],
                    "masterKeyOnly": ["d": true],
                ], master: true)
            #expect(put.body == ["result": true], "\(put.body)")
            let master = try await client.get("/config", master: true)
            #expect(master["params"] == ["a": 3, "c": "keep", "d": "new", "list": ["x", "y"]])
            #expect(master["masterKeyOnly"] == ["a": false, "c": true, "d": true, "list": false], "a flag not named is kept; one named in params is reset")
            #expect(try await client.get("/config")["params"] == ["a": 3, "list": ["x", "y"]])
        }
    }

    @Test(arguments: TestStore.allCases) func updatesAtOnceEachKeepTheOthersParams(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let params: [String: ParseValue] = ["p\(index)": .number(Double(index)), "count": ["__op": "Increment", "amount": 1]]
                        return try await client.put("/config", ["params": .object(params)], master: true).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            let params = try #require(try await client.get("/config", master: true)["params"]?.objectValue)
            #expect(params.count == 21 && params["count"] == 20, "\(params)")
        }
    }

    @Test(arguments: TestStore.allCases) func badBodiesAnswerParseErrorsAndChangeNothing(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await client.put("/config", ["params": ["kept": "yes", "word": "text"], "masterKeyOnly": ["kept": true]], master: true)
            let before = try await client.get("/config", master: true).body
            let cases: [(body: ParseValue, status: Int, code: Int)] = [
                ([:], 400, 111),
                (["params": "a=1"], 400, 111),
                (["params": [1, 2]], 400, 111),
                (["params": ["a": 1], "masterKeyOnly": "a"], 400, 111),
                (["params": ["a": 1], "masterKeyOnly": ["a": "yes"]], 400, 111),
                (["params": ["a.b": 1]], 400, 105),
                (["params": ["$where": 1]], 400, 105),
                (["params": ["": 1]], 400, 105),
                (["params": .object([String(repeating: "n", count: 129): 1])], 400, 105),
                (["params": ["a": ["__type": "Date", "iso": "yesterday"]]], 400, 111),
                (["params": ["a": ["__type": "Pointer", "className": "_User"]]], 400, 111),
                (["params": ["a": ["__type": "GeoPoint", "latitude": 91, "longitude": 0]]], 400, 111),
                (["params": ["a": ["__type": "Mystery"]]], 400, 111),
                (["params": ["a": ["$gt": 1]]], 400, 105),
                (["params": ["a": ["__op": "Explode"]]], 400, 111),
                (["params": ["word": ["__op": "Increment", "amount": 1]]], 400, 111),
                (["params": ["fresh": 1, "word": ["__op": "Increment", "amount": 1]]], 400, 111),
            ]
            for (body, status, code) in cases {
                let reply = try await client.request(.put, "/config", body: body, master: true)
                Support.expectError(reply, status: status, code: code)
            }
            let notJSON = try await Support.send(client, .put, "/config", text: "{not json", headers: Support.clientHeaders(master: true))
            Support.expectError(notJSON, status: 400, code: 107)
            #expect(try await client.get("/config", master: true).body == before)
        }
    }

    @Test(arguments: TestStore.allCases) func aConfigPastItsBoundIsRefusedWhole(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let half = String(repeating: "x", count: GlobalConfig.maximumBytes / 2)
            #expect(try await client.put("/config", ["params": ["first": .string(half)]], master: true).status == 200)
            let before = try await client.get("/config", master: true).body
            let reply = try await client.put("/config", ["params": ["second": .string(half), "third": 1]], master: true)
            Support.expectError(reply, status: 413, code: 116)
            #expect(try await client.get("/config", master: true).body == before, "nothing of the refused update is kept")
            #expect(try await client.put("/config", ["params": ["first": ["__op": "Delete"], "second": .string(half)]], master: true).status == 200)
            #expect(try await client.get("/config", master: true)["params"]?.objectValue?.keys.sorted() == ["second"])
        }
    }

    @Test(arguments: TestStore.allCases) func oneAppsConfigIsUnreachableFromAnother(store: TestStore) async throws {
        try await ObservedServer.with(store: store) { server in
            _ = try await server.a.put("/config", ["params": ["plan": "gold", "key": "a-only"], "masterKeyOnly": ["key": true]], master: true)
            #expect(try await server.b.get("/config", master: true).body == ["params": [:]])
            #expect(try await server.b.put("/config", ["params": ["plan": "free"]], master: true).status == 200)
            #expect(try await server.a.get("/config", master: true)["params"] == ["plan": "gold", "key": "a-only"])
            let crossed = try await server.b.raw(
                .get, "/config", headers: TenantIsolationTests.headers(app: "a", key: "b-master", master: true), body: nil)
            Support.expectError(crossed, status: 403, code: 119)
        }
    }

    @Test(arguments: TestStore.allCases) func theConfigIsReadInBatches(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await client.put("/config", ["params": ["a": 1]], master: true)
            let batch = try await client.post("/batch", ["requests": [["method": "GET", "path": "/parse/config"]]])
            #expect(batch.body == [["success": ["params": ["a": 1], "masterKeyOnly": ["a": false]]]], "\(batch.body)")
        }
    }
}
