import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Queries: GET /classes/X with where, order, limit, skip, keys, count, include")
struct QueryTests {
    /// Five players with names, scores, tags and an optional field; returns their ids by name.
    private static func seedPlayers(_ client: ParseTestClient) async throws -> [String: String] {
        let rows: [[String: ParseValue]] = [
            ["name": "alice", "score": 10, "tags": ["red", "blue"], "team": "A", "nick": "Al"],
            ["name": "bob", "score": 20, "tags": ["blue"], "team": "B"],
            ["name": "carol", "score": 30, "tags": ["green", "red"], "team": "A", "nick": "Caz"],
            ["name": "dave", "score": 20, "tags": [], "team": "C"],
            ["name": "Eve", "score": 5, "tags": ["red", "green", "blue"], "team": "B"],
        ]
        var ids: [String: String] = [:]
        for row in rows { ids[row["name"]!.stringValue!] = try await Support.create(client, "Players", row) }
        return ids
    }

    /// The names of the players a `where` finds, sorted.
    private static func names(_ client: ParseTestClient, _ constraints: ParseValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let reply = try await client.get("/classes/Players", query: ["where": constraints])
        #expect(reply.status == 200, "where \(constraints): \(reply.body)", sourceLocation: sourceLocation)
        return Support.values(reply, "name").compactMap(\.stringValue).sorted()
    }

    @Test("equality on a field", arguments: TestStore.allCases)
    func equality(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["team": "A"]) == ["alice", "carol"])
            #expect(try await Self.names(client, ["score": 20]) == ["bob", "dave"])
            #expect(try await Self.names(client, ["team": "A", "score": 30]) == ["carol"])
            #expect(try await Self.names(client, ["team": "Z"]) == [])
            #expect(try await Self.names(client, [:]) == ["Eve", "alice", "bob", "carol", "dave"])
        }
    }

    @Test("equality on objectId", arguments: TestStore.allCases)
    func equalityOnObjectId(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ids = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["objectId": .string(ids["bob"]!)]) == ["bob"])
        }
    }

    @Test("$lt, $lte, $gt, $gte on numbers", arguments: TestStore.allCases)
    func comparisons(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["score": ["$lt": 20]]) == ["Eve", "alice"])
            #expect(try await Self.names(client, ["score": ["$lte": 20]]) == ["Eve", "alice", "bob", "dave"])
            #expect(try await Self.names(client, ["score": ["$gt": 20]]) == ["carol"])
            #expect(try await Self.names(client, ["score": ["$gte": 20]]) == ["bob", "carol", "dave"])
            #expect(try await Self.names(client, ["score": ["$gt": 5, "$lt": 30]]) == ["alice", "bob", "dave"])
        }
    }

    @Test("$ne, $in, $nin", arguments: TestStore.allCases)
    func membership(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["team": ["$ne": "A"]]) == ["Eve", "bob", "dave"])
            #expect(try await Self.names(client, ["team": ["$in": ["A", "C"]]]) == ["alice", "carol", "dave"])
            #expect(try await Self.names(client, ["score": ["$in": [5, 30]]]) == ["Eve", "carol"])
            #expect(try await Self.names(client, ["team": ["$nin": ["A", "C"]]]) == ["Eve", "bob"])
            #expect(try await Self.names(client, ["team": ["$in": []]]) == [])
        }
    }

    @Test("$exists true and false", arguments: TestStore.allCases)
    func exists(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["nick": ["$exists": true]]) == ["alice", "carol"])
            #expect(try await Self.names(client, ["nick": ["$exists": false]]) == ["Eve", "bob", "dave"])
        }
    }

    @Test("$all on an array field", arguments: TestStore.allCases)
    func all(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["tags": ["$all": ["red", "blue"]]]) == ["Eve", "alice"])
            #expect(try await Self.names(client, ["tags": ["$all": ["green"]]]) == ["Eve", "carol"])
        }
    }

    @Test("equality on an array field matches an element", arguments: TestStore.allCases)
    func arrayContains(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["tags": "green"]) == ["Eve", "carol"])
            #expect(try await Self.names(client, ["tags": "blue"]) == ["Eve", "alice", "bob"])
            #expect(try await Self.names(client, ["tags": "purple"]) == [])
            #expect(try await Self.names(client, ["tags": ["$in": ["green", "purple"]]]) == ["Eve", "carol"])
        }
    }

    @Test("$regex, and $options i for case-insensitive", arguments: TestStore.allCases)
    func regex(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["name": ["$regex": "^[a-c]"]]) == ["alice", "bob", "carol"])
            #expect(try await Self.names(client, ["name": ["$regex": "^e"]]) == [])
            #expect(try await Self.names(client, ["name": ["$regex": "^e", "$options": "i"]]) == ["Eve"])
            #expect(try await Self.names(client, ["name": ["$regex": "o"]]) == ["bob", "carol"])
        }
    }

    @Test("$or and $and", arguments: TestStore.allCases)
    func orAnd(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            #expect(try await Self.names(client, ["$or": [["team": "C"], ["score": ["$lt": 10]]]]) == ["Eve", "dave"])
            #expect(try await Self.names(client, ["$and": [["team": "A"], ["score": ["$gt": 10]]]]) == ["carol"])
            #expect(
                try await Self.names(client, ["team": "B", "$or": [["score": 5], ["score": 30]]]) == ["Eve"])
        }
    }

    @Test("equality on a pointer field", arguments: TestStore.allCases)
    func pointerEquality(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ann = try await Support.create(client, "Authors", ["name": "Ann"])
            let ben = try await Support.create(client, "Authors", ["name": "Ben"])
            let annPointer = ParseValue.pointer(className: "Authors", objectId: ann)
            let benPointer = ParseValue.pointer(className: "Authors", objectId: ben)
            try await Support.create(client, "Books", ["title": "One", "author": annPointer])
            try await Support.create(client, "Books", ["title": "Two", "author": benPointer])
            try await Support.create(client, "Books", ["title": "Three", "author": annPointer])
            try await Support.create(client, "Books", ["title": "Anonymous"])
            let reply = try await client.get("/classes/Books", query: ["where": ["author": annPointer]])
            #expect(reply.status == 200, "\(reply.body)")
            if reply.status >= 500 {
                // Even a failure inside the server must answer Parse's error shape ({"code": 1, "error": …}).
                #expect(reply["code"] == 1 && reply["error"]?.stringValue != nil, "500 body: \(reply.body)")
            }
            #expect(Support.values(reply, "title").compactMap(\.stringValue).sorted() == ["One", "Three"])
            let ben2 = try await client.get("/classes/Books", query: ["where": ["author": benPointer]])
            #expect(ben2.status == 200, "\(ben2.body)")
            #expect(Support.values(ben2, "title") == ["Two"])
        }
    }

    @Test("comparisons with a Parse Date", arguments: TestStore.allCases)
    func dateComparisons(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            func date(_ iso: String) -> ParseValue { ["__type": "Date", "iso": .string(iso)] }
            try await Support.create(client, "Events", ["name": "old", "at": date("2020-01-01T00:00:00.000Z")])
            try await Support.create(client, "Events", ["name": "mid", "at": date("2023-06-15T12:30:00.000Z")])
            try await Support.create(client, "Events", ["name": "new", "at": date("2026-01-01T00:00:00.000Z")])
            func names(_ constraints: ParseValue) async throws -> [String] {
                let reply = try await client.get("/classes/Events", query: ["where": constraints])
                #expect(reply.status == 200, "\(reply.body)")
                return Support.values(reply, "name").compactMap(\.stringValue).sorted()
            }
            #expect(try await names(["at": ["$gt": date("2023-06-15T12:30:00.000Z")]]) == ["new"])
            #expect(try await names(["at": ["$gte": date("2023-06-15T12:30:00.000Z")]]) == ["mid", "new"])
            #expect(try await names(["at": ["$lt": date("2023-01-01T00:00:00.000Z")]]) == ["old"])
            #expect(try await names(["at": ["$lte": date("2026-01-01T00:00:00.000Z")]]) == ["mid", "new", "old"])
            #expect(try await names(["at": date("2020-01-01T00:00:00.000Z")]) == ["old"])
        }
    }

    @Test("comparisons on createdAt", arguments: TestStore.allCases)
    func createdAtComparisons(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let first = try await client.post("/classes/Events", ["name": "first"])
            let firstCreatedAt = try #require(first["createdAt"]?.stringValue)
            let firstDate: ParseValue = ["__type": "Date", "iso": .string(firstCreatedAt)]
            func names(_ constraints: ParseValue) async throws -> [String] {
                let reply = try await client.get("/classes/Events", query: ["where": constraints])
                #expect(reply.status == 200, "\(reply.body)")
                return Support.values(reply, "name").compactMap(\.stringValue).sorted()
            }
            #expect(try await names(["createdAt": ["$gte": firstDate]]) == ["first"])
            #expect(try await names(["createdAt": ["$lt": firstDate]]) == [])
            #expect(try await names(["createdAt": ["$gt": ["__type": "Date", "iso": "2000-01-01T00:00:00.000Z"]]]) == ["first"])
            #expect(try await names(["createdAt": ["$lt": ["__type": "Date", "iso": "2000-01-01T00:00:00.000Z"]]]) == [])
            #expect(try await names(["createdAt": ["$lt": ["__type": "Date", "iso": "2999-01-01T00:00:00.000Z"]]]) == ["first"])
        }
    }

    @Test("order by several keys, with - for descending", arguments: TestStore.allCases)
    func order(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            let reply = try await client.get("/classes/Players", query: ["order": "-score,name"])
            #expect(reply.status == 200)
            #expect(Support.values(reply, "name") == ["carol", "bob", "dave", "alice", "Eve"])
            let ascending = try await client.get("/classes/Players", query: ["order": "score,-name"])
            #expect(Support.values(ascending, "name") == ["Eve", "alice", "dave", "bob", "carol"])
        }
    }

    @Test("order given as a JSON array string", arguments: TestStore.allCases)
    func orderAsJSONArray(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            let reply = try await client.get("/classes/Players", query: ["order": #"["-score","name"]"#])
            #expect(reply.status == 200, "\(reply.body)")
            #expect(Support.values(reply, "name") == ["carol", "bob", "dave", "alice", "Eve"])
        }
    }

    @Test("descending order on a number reverses the creation order", arguments: TestStore.allCases)
    func orderDescending(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            var ids: [String] = []
            for index in 0..<4 { ids.append(try await Support.create(client, "Steps", ["n": .number(Double(index))])) }
            let reply = try await client.get("/classes/Steps", query: ["order": "-n"])
            #expect(Support.ids(reply) == ids.reversed())
        }
    }

    @Test("Dates compare by instant, whatever precision their iso text was written with", arguments: TestStore.allCases)
    func datePrecision(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            func date(_ iso: String) -> ParseValue { ["__type": "Date", "iso": .string(iso)] }
            // The same instant without milliseconds, and half a second later with one fraction digit.
            try await Support.create(client, "Events", ["name": "noon", "at": date("2024-01-01T12:00:00Z")])
            try await Support.create(client, "Events", ["name": "later", "at": date("2024-01-01T12:00:00.5Z")])
            try await Support.create(client, "Events", ["name": "before", "at": date("2024-01-01T11:59:59.900Z")])
            func names(_ constraints: ParseValue) async throws -> [String] {
                let reply = try await client.get("/classes/Events", query: ["where": constraints])
                #expect(reply.status == 200, "\(reply.body)")
                return Support.values(reply, "name").compactMap(\.stringValue).sorted()
            }
            do {
                let found = try await names(["at": date("2024-01-01T12:00:00.000Z")])
                #expect(found == ["noon"])
            }
            do {
                let found = try await names(["at": ["$lt": date("2024-01-01T12:00:00.250Z")]])
                #expect(found == ["before", "noon"])
            }
            do {
                let found = try await names(["at": ["$gt": date("2024-01-01T12:00:00.000Z")]])
                #expect(found == ["later"])
            }
            let ordered = try await client.get("/classes/Events", query: ["order": "at"])
            #expect(Support.values(ordered, "name") == ["before", "noon", "later"])
        }
    }

    @Test("equality and comparisons do not mix types: 1 is not true, a string is not greater than a number", arguments: TestStore.allCases)
    func typeStrictComparisons(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "Flags", ["name": "on", "flag": true, "list": [true]])
            try await Support.create(client, "Flags", ["name": "off", "flag": false, "list": [false]])
            func names(_ constraints: ParseValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
                let reply = try await client.get("/classes/Flags", query: ["where": constraints])
                // A refusal (400) would be acceptable; matching objects of another type is not.
                guard reply.status == 200 else {
                    #expect(reply.status == 400, "\(reply.body)", sourceLocation: sourceLocation)
                    return []
                }
                return Support.values(reply, "name").compactMap(\.stringValue).sorted()
            }
            do {
                let found = try await names(["flag": true])
                #expect(found == ["on"])
            }
            do {
                let found = try await names(["flag": 1])
                #expect(found == [], "the number 1 matched a Boolean true")
            }
            do {
                let found = try await names(["flag": 0])
                #expect(found == [], "the number 0 matched a Boolean false")
            }
            do {
                let found = try await names(["flag": ["$in": [1]]])
                #expect(found == [], "$in [1] matched a Boolean true")
            }
            do {
                let found = try await names(["flag": ["$gt": 0]])
                #expect(found == [], "$gt 0 matched a Boolean true")
            }
            do {
                let found = try await names(["list": 1])
                #expect(found == [], "the number 1 matched an array holding true")
            }
            do {
                let found = try await names(["name": ["$gt": 0]])
                #expect(found == [], "$gt 0 matched string values")
            }
        }
    }

    @Test("the default limit is 100", arguments: TestStore.allCases)
    func defaultLimit(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.batchCreate(client, "Items", count: 105) { ["n": .number(Double($0))] }
            let reply = try await client.get("/classes/Items")
            #expect(reply.status == 200)
            #expect(reply["results"]?.arrayValue?.count == 100)
            #expect(try await Support.masterCount(client, "Items") == 105)
            let all = try await client.get("/classes/Items", query: ["limit": 200])
            #expect(all["results"]?.arrayValue?.count == 105)
        }
    }

    @Test("limit and skip page through an ordered result", arguments: TestStore.allCases)
    func limitAndSkip(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for index in 0..<10 { try await Support.create(client, "Items", ["n": .number(Double(index))]) }
            let page = try await client.get("/classes/Items", query: ["order": "n", "limit": 3, "skip": 4])
            #expect(page.status == 200)
            #expect(Support.values(page, "n") == [4, 5, 6])
            let tail = try await client.get("/classes/Items", query: ["order": "n", "skip": 8])
            #expect(Support.values(tail, "n") == [8, 9])
            let beyond = try await client.get("/classes/Items", query: ["skip": 50])
            #expect(beyond["results"] == [])
        }
    }

    @Test("negative limit or skip is refused with 102", arguments: TestStore.allCases)
    func negativeLimit(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            Support.expectError(try await client.get("/classes/Items", query: ["limit": -1]), status: 400, code: 102)
            Support.expectError(try await client.get("/classes/Items", query: ["skip": -1]), status: 400, code: 102)
            Support.expectError(try await client.get("/classes/Items", query: ["limit": "ten"]), status: 400, code: 102)
        }
    }

    @Test("keys keeps only the listed fields plus objectId, createdAt and updatedAt", arguments: TestStore.allCases)
    func keys(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "Players", ["name": "alice", "score": 10, "team": "A", "nick": "Al"])
            let reply = try await client.get("/classes/Players", query: ["keys": "name,score"])
            #expect(reply.status == 200)
            let first = try #require(reply["results"]?.arrayValue?.first?.objectValue)
            #expect(Set(first.keys) == ["name", "score", "objectId", "createdAt", "updatedAt"])
            #expect(first["name"] == "alice")
            let single = try await client.get("/classes/Players/\(id)", query: ["keys": "team"])
            #expect(single.status == 200)
            #expect(Set(single.body.objectValue?.keys.map { $0 } ?? []) == ["team", "objectId", "createdAt", "updatedAt"])
        }
    }

    @Test("count=1 with limit=0 answers no results and the right count", arguments: TestStore.allCases)
    func countOnly(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            let reply = try await client.get("/classes/Players", query: ["count": 1, "limit": 0, "where": ["team": ["$ne": "C"]]])
            #expect(reply.status == 200)
            #expect(reply["results"] == [])
            #expect(reply["count"] == 4)
        }
    }

    @Test("count=true counts past the limit", arguments: TestStore.allCases)
    func countTrue(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await Self.seedPlayers(client)
            let reply = try await client.get("/classes/Players", query: ["count": "true", "limit": 2])
            #expect(reply.status == 200)
            #expect(reply["results"]?.arrayValue?.count == 2)
            #expect(reply["count"] == 5)
            let noCount = try await client.get("/classes/Players")
            #expect(noCount["count"] == nil)
        }
    }

    @Test("include replaces a pointer with the object it points to", arguments: TestStore.allCases)
    func include(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ann = try await Support.create(client, "Authors", ["name": "Ann", "age": 40])
            let bookId = try await Support.create(
                client, "Books", ["title": "One", "author": .pointer(className: "Authors", objectId: ann)])
            let reply = try await client.get("/classes/Books", query: ["include": "author"])
            #expect(reply.status == 200, "\(reply.body)")
            let author = try #require(reply["results"]?.arrayValue?.first?["author"])
            #expect(author["__type"] == "Object")
            #expect(author["className"] == "Authors")
            #expect(author["objectId"]?.stringValue == ann)
            #expect(author["name"] == "Ann")
            #expect(author["age"] == 40)
            #expect(Support.isParseDate(author["createdAt"]?.stringValue))

            let single = try await client.get("/classes/Books/\(bookId)", query: ["include": "author"])
            #expect(single["author"]?["name"] == "Ann")
            #expect(single["author"]?["__type"] == "Object")

            let plain = try await client.get("/classes/Books/\(bookId)")
            #expect(plain["author"] == .pointer(className: "Authors", objectId: ann))
        }
    }

    @Test("include follows dotted paths and arrays of pointers", arguments: TestStore.allCases)
    func nestedInclude(_ store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let ann = try await Support.create(client, "Authors", ["name": "Ann"])
            let ben = try await Support.create(client, "Authors", ["name": "Ben"])
            let book = try await Support.create(
                client, "Books",
                [
                    "title": "One", "author": .pointer(className: "Authors", objectId: ann),
                    "editors": [.pointer(className: "Authors", objectId: ben), .pointer(className: "Authors", objectId: ann)],
                ])
            try await Support.create(client, "Reviews", ["stars": 5, "book": .pointer(className: "Books", objectId: book)])
            let reply = try await client.get("/classes/Reviews", query: ["include": "book.author,book.editors"])
            #expect(reply.status == 200, "\(reply.body)")
            let included = try #require(reply["results"]?.arrayValue?.first?["book"])
            #expect(included["__type"] == "Object")
            #expect(included["title"] == "One")
            #expect(included["author"]?["name"] == "Ann")
            #expect(included["editors"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Ben", "Ann"])
        }
    }
}
