import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("POST /batch")
struct BatchTests {
    @Test("operations with the mount in their path run in order and answer success entries", arguments: TestStore.allCases)
    func mountedPaths(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let existing = try await Support.create(client, "Posts", ["title": "old", "n": 1])
            let reply = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": "new"]],
                        ["method": "PUT", "path": .string("/parse/classes/Posts/\(existing)"), "body": ["n": ["__op": "Increment", "amount": 1]]],
                        ["method": "GET", "path": .string("/parse/classes/Posts/\(existing)")],
                    ]
                ])
            #expect(reply.status == 200)
            let entries = try #require(reply.body.arrayValue)
            #expect(entries.count == 3)
            let createdId = try #require(entries[0]["success"]?["objectId"]?.stringValue)
            #expect(createdId.count == 10)
            #expect(Support.isParseDate(entries[0]["success"]?["createdAt"]?.stringValue))
            #expect(entries[1]["success"]?["n"] == 2)
            #expect(Support.isParseDate(entries[1]["success"]?["updatedAt"]?.stringValue))
            #expect(entries[2]["success"]?["n"] == 2)
            #expect(entries[2]["success"]?["title"] == "old")
            #expect(try await client.get("/classes/Posts/\(createdId)")["title"] == "new")
        }
    }

    @Test("paths without the mount work too", arguments: TestStore.allCases)
    func unmountedPaths(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.post(
                "/batch", ["requests": [["method": "POST", "path": "/classes/Posts", "body": ["title": "a"]]]])
            #expect(reply.status == 200)
            #expect(reply.body.arrayValue?.first?["success"]?["objectId"]?.stringValue != nil)
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("a failing operation answers an error entry and the others still run", arguments: TestStore.allCases)
    func mixed(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let toDelete = try await Support.create(client, "Posts", ["title": "bye"])
            let reply = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": "one"]],
                        ["method": "PUT", "path": "/parse/classes/Posts/nosuchid00", "body": ["title": "x"]],
                        ["method": "POST", "path": "/parse/classes/1bad", "body": ["title": "x"]],
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["$bad": 1]],
                        ["method": "DELETE", "path": .string("/parse/classes/Posts/\(toDelete)")],
                        ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": "two"]],
                    ]
                ])
            #expect(reply.status == 200)
            let entries = try #require(reply.body.arrayValue)
            #expect(entries.count == 6)
            #expect(entries[0]["success"]?["objectId"] != nil)
            #expect(entries[0]["error"] == nil)
            func expectError(_ entry: ParseValue, code: Int, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(entry["success"] == nil, sourceLocation: sourceLocation)
                #expect(entry["error"]?["code"]?.intValue == code, "\(entry)", sourceLocation: sourceLocation)
                #expect(entry["error"]?["error"]?.stringValue != nil, "\(entry)", sourceLocation: sourceLocation)
            }
            expectError(entries[1], code: 101)
            expectError(entries[2], code: 103)
            expectError(entries[3], code: 105)
            #expect(entries[4]["success"] == .object([:]))
            #expect(entries[5]["success"]?["objectId"] != nil)
            let titles = Support.values(try await client.get("/classes/Posts"), "title").compactMap(\.stringValue).sorted()
            #expect(titles == ["one", "two"])
        }
    }

    @Test("an operation without method or with an unknown path answers an error entry", arguments: TestStore.allCases)
    func badOperations(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let reply = try await client.post(
                "/batch",
                [
                    "requests": [
                        ["path": "/parse/classes/Posts", "body": ["title": "x"]],
                        ["method": "POST", "path": "/parse/nowhere", "body": ["title": "x"]],
                        ["method": "POST", "path": "/parse/batch", "body": ["requests": []]],
                    ]
                ])
            #expect(reply.status == 200)
            let entries = try #require(reply.body.arrayValue)
            #expect(entries.count == 3)
            for entry in entries {
                #expect(entry["error"]?["code"]?.intValue != nil, "\(entry)")
                #expect(entry["error"]?["error"]?.stringValue != nil, "\(entry)")
            }
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("more than 50 operations is refused and nothing runs", arguments: TestStore.allCases)
    func tooMany(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let requests: [ParseValue] = (0..<51).map { index in
                ["method": "POST", "path": "/parse/classes/Posts", "body": ["n": .number(Double(index))]]
            }
            let reply = try await client.post("/batch", ["requests": .array(requests)])
            Support.expectClientError(reply)
            #expect(reply["code"] == 107)
            #expect(try await Support.masterCount(client, "Posts") == 0)
        }
    }

    @Test("exactly 50 operations are accepted", arguments: TestStore.allCases)
    func fifty(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.batchCreate(client, "Posts", count: 50) { ["n": .number(Double($0))] }
            #expect(try await Support.masterCount(client, "Posts") == 50)
        }
    }

    @Test("a batch without a requests array answers 107", arguments: TestStore.allCases)
    func noRequests(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.post("/batch", [:]), status: 400, code: 107)
            Support.expectError(try await client.post("/batch", ["requests": "x"]), status: 400, code: 107)
        }
    }

    @Test("batch operations obey ACLs as the batch's caller", arguments: TestStore.allCases)
    func batchACL(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let locked = try await Support.create(client, "Posts", ["title": "locked", "ACL": ["*": ["read": true]]])
            let reply = try await client.post(
                "/batch",
                ["requests": [["method": "PUT", "path": .string("/parse/classes/Posts/\(locked)"), "body": ["title": "hacked"]]]])
            #expect(reply.body.arrayValue?.first?["error"]?["code"] == 101)
            #expect(try await client.get("/classes/Posts/\(locked)")["title"] == "locked")
        }
    }
}
