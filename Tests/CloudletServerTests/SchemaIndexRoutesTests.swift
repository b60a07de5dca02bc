import Cloudlet
import CloudletRuntime
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

/// Hostile `indexes` in `/schemas` bodies: an index on a field that is not one of the class's, or
/// past the bound on indexes, is refused with a clear error, and the class keeps the indexes it had.
@Suite struct SchemaIndexRoutesTests {
    @Test("an index on a hostile, missing or reserved field, or with a bad direction, is refused and nothing changes", arguments: TestStore.allCases)
    func indexesOnBadFields(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let created = try await client.post("/schemas/Games", ["fields": ["score": ["type": "Number"]], "indexes": ["by_score": ["score": 1]]], master: true)
            #expect(created.status == 200, "\(created.body)")
            for keys: ParseValue in [
                ["sc'ore": 1], ["score') WHERE 1; --": 1], ["missing": 1], ["ACL": 1], ["_rperm": 1], ["score.nested": 1],
                ["score": 2], ["score": "up"], [:], .object(Dictionary(uniqueKeysWithValues: (0..<9).map { ("f\($0)", ParseValue.number(1)) })),
            ] {
                Support.expectError(try await client.put("/schemas/Games", ["indexes": ["bad": keys]], master: true), status: 400, code: 255)
            }
            let schema = try await client.get("/schemas/Games", master: true)
            #expect(schema["indexes"] == ["_id_": ["_id": 1], "by_score": ["score": 1]], "\(schema.body)")
        }
    }

    @Test("a class holds at most ClassSchemas.maximumIndexes indexes besides _id_; a deleted one makes room", arguments: TestStore.allCases)
    func tooManyIndexes(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let bound = ClassSchemas.maximumIndexes
            let fields = Dictionary(uniqueKeysWithValues: (0...bound).map { ("f\($0)", ParseValue.object(["type": "Number"])) })
            #expect(try await client.post("/schemas/Games", ["fields": .object(fields)], master: true).status == 200)
            func indexes(_ range: ClosedRange<Int>) -> ParseValue {
                .object(Dictionary(uniqueKeysWithValues: range.map { ("i\($0)", ParseValue.object(["f\($0)": 1])) }))
            }
            Support.expectError(try await client.put("/schemas/Games", ["indexes": indexes(0...bound)], master: true), status: 400, code: 255)
            #expect(try await client.get("/schemas/Games", master: true)["indexes"] == ["_id_": ["_id": 1]], "all or nothing")

            #expect(try await client.put("/schemas/Games", ["indexes": indexes(1...bound)], master: true).status == 200)
            Support.expectError(try await client.put("/schemas/Games", ["indexes": indexes(0...0)], master: true), status: 400, code: 255)
            let swapped = try await client.put("/schemas/Games", ["indexes": ["i1": ["__op": "Delete"], "i0": ["f0": -1]]], master: true)
            #expect(swapped.status == 200, "\(swapped.body)")
            #expect(swapped["indexes"]?["i0"] == ["f0": -1] && swapped["indexes"]?["i1"] == nil)
            #expect(swapped["indexes"]?.objectValue?.count == bound + 1, "_id_ and \(bound) indexes")
        }
    }
}
