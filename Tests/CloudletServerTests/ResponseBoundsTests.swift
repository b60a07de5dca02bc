import Cloudlet
import CloudletTesting
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer
import CloudletServerTesting

@Suite("Bounds on what one request can make the server build")
struct ResponseBoundsTests {
    private static let smallBudget = ServerConfiguration(maximumResponseBytes: 1 << 20)

    /// A 100 KB object and a holder with 1,000 pointers to it; returns the holder's id.
    private static func fanOut(_ client: ParseTestClient) async throws -> String {
        let target = try await Support.create(client, "Blobs", ["text": .string(String(repeating: "x", count: 100_000))])
        let pointers = Array(repeating: ParseValue.pointer(className: "Blobs", objectId: target), count: 1000)
        return try await Support.create(client, "Holders", ["p": .array(pointers), "name": "holder"])
    }

    @Test("an include that would copy one object into a thousand pointers answers 154 instead of 100 MB", arguments: TestStore.allCases)
    func includeFanOut(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry(), configuration: Self.smallBudget) { client in
            let holder = try await Self.fanOut(client)
            Support.expectError(try await client.get("/classes/Holders/\(holder)", query: ["include": "p"]), status: 400, code: 154)
            Support.expectError(try await client.get("/classes/Holders", query: ["include": "p"]), status: 400, code: 154)
            let plain = try await client.get("/classes/Holders/\(holder)")
            #expect(plain.status == 200)
            #expect(plain["name"] == "holder")
        }
    }

    @Test("a find that would read more than the budget stops with 154; a smaller page answers", arguments: TestStore.allCases)
    func findPastTheBudget(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry(), configuration: Self.smallBudget) { client in
            try await Support.batchCreate(client, "Pages", count: 100) { _ in ["text": .string(String(repeating: "y", count: 20_000))] }
            Support.expectError(try await client.get("/classes/Pages", query: ["limit": 100]), status: 400, code: 154)
            let page = try await client.get("/classes/Pages", query: ["limit": 10])
            #expect(page["results"]?.arrayValue?.count == 10)
        }
    }

    @Test("a batch answers an over-budget or invalid read in its own entry and reports the write before it", arguments: TestStore.allCases)
    func batchKeepsCommittedWrites(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry(), configuration: Self.smallBudget) { client in
            let holder = try await Self.fanOut(client)
            let reply = try await client.post(
                "/batch",
                ["requests": [
                    ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": "kept"]],
                    ["method": "GET", "path": .string("/parse/classes/Holders/\(holder)"), "body": ["include": "p"]],
                    ["method": "GET", "path": "/parse/classes/Posts", "body": ["order": .string((0..<2500).map { "f\($0)" }.joined(separator: ","))]],
                ]])
            #expect(reply.status == 200, "\(reply.body)")
            let entries = try #require(reply.body.arrayValue)
            #expect(entries.count == 3)
            #expect(entries[0]["success"]?["objectId"]?.stringValue != nil)
            #expect(entries[1]["error"]?["code"] == 154, "\(entries[1])")
            #expect(entries[2]["error"]?["code"] == 102, "\(entries[2])")
            #expect(try await Support.masterCount(client, "Posts") == 1)
        }
    }

    @Test("Add cannot grow a stored object past the object size cap: 116, nothing written", arguments: TestStore.allCases)
    func objectSizeCap(store: TestStore) async throws {
        let configuration = ServerConfiguration(maximumObjectBytes: 10_000)
        try await store.withRouter(registry: HookRegistry(), configuration: configuration) { client in
            let id = try await Support.create(client, "Logs", ["lines": []])
            let chunk = ParseValue.string(String(repeating: "z", count: 4000))
            for _ in 0..<2 {
                let grown = try await client.put("/classes/Logs/\(id)", ["lines": ["__op": "Add", "objects": [chunk]]])
                #expect(grown.status == 200, "\(grown.body)")
            }
            let tooLarge = try await client.put("/classes/Logs/\(id)", ["lines": ["__op": "Add", "objects": [chunk]]])
            Support.expectError(tooLarge, status: 413, code: 116)
            #expect(try await client.get("/classes/Logs/\(id)")["lines"]?.arrayValue?.count == 2)
            let created = try await client.post("/classes/Logs", ["lines": [chunk, chunk, chunk]])
            Support.expectError(created, status: 413, code: 116)
            #expect(try await Support.masterCount(client, "Logs") == 1)
        }
    }

    @Test("include paths deeper than the cap answer 102", arguments: TestStore.allCases)
    func includeDepth(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Chains", ["name": "one"])
            let deep = (0...ReadBudget.maximumIncludeDepth).map { "f\($0)" }.joined(separator: ".")
            Support.expectError(try await client.get("/classes/Chains", query: ["include": .string(deep)]), status: 400, code: 102)
            let allowed = (1...ReadBudget.maximumIncludeDepth).map { "f\($0)" }.joined(separator: ".")
            #expect(try await client.get("/classes/Chains", query: ["include": .string(allowed)]).status == 200)
        }
    }

    @Test("include may fetch at most the capped number of objects per request")
    func includedObjectsCap() throws {
        let budget = ReadBudget()
        try budget.chargeIncluded(ReadBudget.maximumIncludedObjects)
        #expect(throws: ParseError.self) { try budget.chargeIncluded(1) }
    }
}
