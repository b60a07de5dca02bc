import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("excludeKeys on find and get, and $containedBy")
struct ExcludeKeysContainedByTests {
    @Test("excludeKeys leaves fields out of find and get results, and out of included objects by a dotted path", arguments: TestStore.allCases)
    func excludeKeys(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let author = try await Support.create(client, "Authors", ["name": "Ann", "phone": "555"])
            let book = try await Support.create(
                client, "Books",
                ["title": "One", "body": "long text", "price": 9, "author": .pointer(className: "Authors", objectId: author),
                 "editors": [.pointer(className: "Authors", objectId: author)]])

            let found = try await client.get("/classes/Books", query: ["excludeKeys": "body,price"])
            let first = try #require(found["results"]?.arrayValue?.first)
            #expect(first["title"] == "One")
            #expect(first["body"] == nil)
            #expect(first["price"] == nil)
            #expect(first["objectId"]?.stringValue == book)
            #expect(first["createdAt"] != nil)

            let got = try await client.get("/classes/Books/\(book)", query: ["excludeKeys": "body"])
            #expect(got.status == 200)
            #expect(got["body"] == nil)
            #expect(got["price"] == 9)

            let asArray = try await client.get("/classes/Books/\(book)", query: ["excludeKeys": #"["title","objectId"]"#])
            #expect(asArray["title"] == nil)
            #expect(asArray["objectId"]?.stringValue == book)

            let included = try await client.get(
                "/classes/Books/\(book)", query: ["include": "author,editors", "excludeKeys": "author.phone,editors.phone"])
            #expect(included["author"]?["name"] == "Ann")
            #expect(included["author"]?["phone"] == nil)
            #expect(included["editors"]?.arrayValue?.first?["name"] == "Ann")
            #expect(included["editors"]?.arrayValue?.first?["phone"] == nil)

            let implied = try await client.get("/classes/Books/\(book)", query: ["excludeKeys": "author.phone"])
            #expect(implied["author"]?["name"] == "Ann", "a dotted path includes the pointer it reaches into: \(implied.body)")
            #expect(implied["author"]?["phone"] == nil)

            let withKeys = try await client.get("/classes/Books", query: ["keys": "title,price", "excludeKeys": "price"])
            #expect(withKeys["results"]?.arrayValue?.first?["title"] == "One")
            #expect(withKeys["results"]?.arrayValue?.first?["price"] == nil)

            Support.expectError(try await client.get("/classes/Books", query: ["excludeKeys": #"[1]"#]), status: 400, code: 102)
            Support.expectError(try await client.get("/classes/Books", query: ["excludeKeys": #"["a""#]), status: 400, code: 107)
        }
    }

    @Test("$containedBy: arrays whose every element is in the list; empty arrays match, missing fields do not", arguments: TestStore.allCases)
    func containedBy(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let rows: [(String, ParseValue?)] = [
                ("ab", ["a", "b"]), ("a", ["a"]), ("abc", ["a", "b", "c"]), ("empty", []), ("numbers", [1, 2]),
                ("missing", nil),
            ]
            for (name, tags) in rows {
                var fields: [String: ParseValue] = ["name": .string(name)]
                if let tags { fields["tags"] = tags }
                try await Support.create(client, "Bags", fields)
            }
            func names(_ list: ParseValue) async throws -> [String] {
                let reply = try await client.get("/classes/Bags", query: ["where": ["tags": ["$containedBy": list]]])
                #expect(reply.status == 200, "\(reply.body)")
                return Support.values(reply, "name").compactMap(\.stringValue).sorted()
            }
            #expect(try await names(["a", "b"]) == ["a", "ab", "empty"])
            #expect(try await names(["a"]) == ["a", "empty"])
            #expect(try await names([]) == ["empty"])
            #expect(try await names([1, 2, 3]) == ["empty", "numbers"])
            #expect(try await names(["1", "2"]) == ["empty"])
            #expect(try await names(["a", "b", "c", 1, 2]) == ["a", "ab", "abc", "empty", "numbers"])

            let authors = [try await Support.create(client, "Authors", ["n": 1]), try await Support.create(client, "Authors", ["n": 2])]
            try await Support.create(client, "Books", ["by": [.pointer(className: "Authors", objectId: authors[0])]])
            let pointed = try await client.get(
                "/classes/Books", query: ["where": ["by": ["$containedBy": [.pointer(className: "Authors", objectId: authors[0])]]], "count": 1])
            #expect(pointed["count"] == 1)
            let other = try await client.get(
                "/classes/Books", query: ["where": ["by": ["$containedBy": [.pointer(className: "Authors", objectId: authors[1])]]], "count": 1])
            #expect(other["count"] == 0)

            Support.expectError(try await client.get("/classes/Bags", query: ["where": ["tags": ["$containedBy": "a"]]]), status: 400, code: 102)
            Support.expectError(try await client.get("/classes/Bags", query: ["where": ["objectId": ["$containedBy": ["a"]]]]), status: 400, code: 102)
            let tooMany = ParseValue.array((0..<40_000).map { .number(Double($0)) })
            Support.expectError(try await client.get("/classes/Bags", query: ["where": ["tags": ["$containedBy": tooMany]]]), status: 400, code: 102)
        }
    }
}
