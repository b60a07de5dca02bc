import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Full-text search: $text with $search, ordered by $score")
struct TextSearchTests {
    /// The subjects of Parse Server's own full-text tests.
    static let subjects = [
        "coffee", "Coffee Shopping", "Baking a cake", "baking", "Café Con Leche", "Сырники", "coffee and cream", "Cafe con Leche",
    ]

    static func seed(_ client: ParseTestClient) async throws {
        for subject in subjects { try await Support.create(client, "TestObject", ["subject": .string(subject), "n": 1]) }
    }

    static func search(_ term: String, _ options: [String: ParseValue] = [:], field: String = "subject") -> ParseValue {
        var search = options
        search["$term"] = .string(term)
        return .object([field: ["$text": ["$search": .object(search)]]])
    }

    /// The subjects found by `term`, in the order answered (sorted when `order` is nil).
    static func subjects(
        _ client: ParseTestClient, _ term: String, _ options: [String: ParseValue] = [:], order: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        var query: [String: ParseValue] = ["where": search(term, options)]
        if let order { query["order"] = .string(order) }
        let reply = try await client.get("/classes/TestObject", query: query)
        #expect(reply.status == 200, "\(term): \(reply.body)", sourceLocation: sourceLocation)
        let found = Support.values(reply, "subject").compactMap(\.stringValue)
        return order == nil ? found.sorted() : found
    }

    @Test("words match any of them, case and diacritics folded, English words by their stems", arguments: TestStore.allCases)
    func words(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            #expect(try await Self.subjects(client, "coffee") == ["Coffee Shopping", "coffee", "coffee and cream"])
            #expect(try await Self.subjects(client, "CAFÉ") == ["Cafe con Leche", "Café Con Leche"])
            #expect(try await Self.subjects(client, "leche", ["$language": "spanish"]) == ["Cafe con Leche", "Café Con Leche"])
            #expect(try await Self.subjects(client, "bake") == ["Baking a cake", "baking"], "English stems: bake finds baking")
            #expect(try await Self.subjects(client, "bake", ["$language": "spanish"]) == [], "other languages compare whole words")
            #expect(try await Self.subjects(client, "cream сырники") == ["coffee and cream", "Сырники"])
            #expect(try await Self.subjects(client, "tea") == [])
            let pipeline: ParseValue = [["$match": Self.search("coffee")], ["$count": "n"]]
            let counted = try await client.get("/aggregate/TestObject", query: ["pipeline": pipeline], master: true)
            #expect(counted["results"] == [["n": 3]], "an aggregate's $match searches too: \(counted.body)")
        }
    }

    @Test("quoted phrases must all appear in order; -word and -\"phrase\" exclude", arguments: TestStore.allCases)
    func phrasesAndNegation(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            #expect(try await Self.subjects(client, "\"coffee shopping\"") == ["Coffee Shopping"])
            #expect(try await Self.subjects(client, "\"shopping coffee\"") == [])
            #expect(try await Self.subjects(client, "\"con leche\" \"café\"") == ["Cafe con Leche", "Café Con Leche"])
            #expect(try await Self.subjects(client, "coffee -cream") == ["Coffee Shopping", "coffee"])
            #expect(try await Self.subjects(client, "coffee -\"and cream\"") == ["Coffee Shopping", "coffee"])
            #expect(try await Self.subjects(client, "-coffee") == [], "negations alone match nothing")
            #expect(try await Self.subjects(client, "leche -café", ["$diacriticSensitive": true]) == ["Cafe con Leche"])
        }
    }

    @Test("$caseSensitive and $diacriticSensitive compare words exactly, as Parse Server on MongoDB does", arguments: TestStore.allCases)
    func sensitiveSearches(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Self.seed(client)
            #expect(try await Self.subjects(client, "CAFÉ", ["$diacriticSensitive": true]) == ["Café Con Leche"])
            #expect(try await Self.subjects(client, "Coffee", ["$caseSensitive": true]) == ["Coffee Shopping"])
            #expect(try await Self.subjects(client, "Cafe", ["$caseSensitive": true, "$diacriticSensitive": true]) == ["Cafe con Leche"])
            #expect(try await Self.subjects(client, "cafe", ["$caseSensitive": true]) == [])
        }
    }

    @Test("order $score ranks the most relevant first; keys $score answers each result's score", arguments: TestStore.allCases)
    func scoreOrder(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            for text in ["a note about tea", "coffee coffee coffee", "coffee, then a long afternoon of other things to do", "tea"] {
                try await Support.create(client, "Notes", ["body": .string(text)])
            }
            for order in ["$score", "-$score"] {
                let reply = try await client.get(
                    "/classes/Notes", query: ["where": Self.search("coffee", field: "body"), "order": .string(order), "keys": "$score,body"])
                #expect(reply.status == 200, "\(reply.body)")
                let bodies = Support.values(reply, "body").compactMap(\.stringValue)
                #expect(bodies == ["coffee coffee coffee", "coffee, then a long afternoon of other things to do"])
                let scores = Support.values(reply, "score").compactMap(\.doubleValue)
                #expect(scores.count == 2 && scores[0] > scores[1] && scores[1] > 0, "\(reply.body)")
            }
            // Beside a phrase, the words rank without deciding what matches.
            let ranked = try await client.get(
                "/classes/Notes", query: ["where": Self.search("\"coffee\" afternoon", field: "body"), "order": "$score"])
            #expect(Support.values(ranked, "body") == ["coffee, then a long afternoon of other things to do", "coffee coffee coffee"])
            let unscored = try await client.get("/classes/Notes", query: ["where": Self.search("coffee", field: "body"), "order": "$score"])
            #expect(Support.values(unscored, "score") == [.null, .null], "no score unless keys ask for it")
            // $score without a $text is refused.
            Support.expectError(try await client.get("/classes/Notes", query: ["order": "$score"]), status: 400, code: 102)
            Support.expectError(try await client.get("/classes/Notes", query: ["keys": "$score"]), status: 400, code: 102)
        }
    }

    @Test("$text combines with other constraints, limit, count and ACLs; another app's objects are never found", arguments: TestStore.allCases)
    func combinedAndIsolated(store: TestStore) async throws {
        try await RateLimitRouteTests.withApps(.off, store: store) { a, b in
            try await Self.seed(a)
            try await Support.create(a, "TestObject", ["subject": "coffee for one", "n": 2, "ACL": ["someone": ["read": true]]])
            try await Support.create(b, "TestObject", ["subject": "coffee in app b", "n": 1])
            var query: [String: ParseValue] = ["where": Self.search("coffee")]
            #expect(try await a.get("/classes/TestObject", query: query)["results"]?.arrayValue?.count == 3, "the private one stays hidden")
            #expect(try await a.get("/classes/TestObject", query: query, master: true)["results"]?.arrayValue?.count == 4)
            query["where"] = ["subject": ["$text": ["$search": ["$term": "coffee"]], "$ne": "coffee"], "n": 1]
            query["count"] = 1
            query["limit"] = 1
            let limited = try await a.get("/classes/TestObject", query: query, master: true)
            #expect(limited["count"] == 2 && limited["results"]?.arrayValue?.count == 1, "\(limited.body)")
            let inB = try await b.get("/classes/TestObject", query: ["where": Self.search("coffee")])
            #expect(Support.values(inB, "subject") == ["coffee in app b"])
            #expect(try await b.get("/classes/TestObject", query: ["where": Self.search("leche")])["results"] == [])
        }
    }

    @Test("saves, updates and deletes keep the index in step", arguments: TestStore.allCases)
    func indexFollowsWrites(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "TestObject", ["subject": "first draft"])
            #expect(try await Self.subjects(client, "draft") == ["first draft"])
            _ = try await client.put("/classes/TestObject/\(id)", ["n": 5])
            #expect(try await Self.subjects(client, "draft") == ["first draft"], "an update of other fields keeps the text")
            _ = try await client.put("/classes/TestObject/\(id)", ["subject": "final copy"])
            #expect(try await Self.subjects(client, "draft") == [])
            #expect(try await Self.subjects(client, "copy") == ["final copy"])
            _ = try await client.put("/classes/TestObject/\(id)", ["subject": ["__op": "Delete"]])
            #expect(try await Self.subjects(client, "copy") == [])
            _ = try await client.put("/classes/TestObject/\(id)", ["subject": "back again"])
            _ = try await client.delete("/classes/TestObject/\(id)")
            #expect(try await Self.subjects(client, "back") == [])
        }
    }

    @Test("an update indexes again only the String fields it changes: the others stay found, the old text of a changed one is gone", arguments: TestStore.allCases)
    func anUpdateKeepsTheFieldsItLeavesAlone(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let id = try await Support.create(client, "TestObject", ["subject": "morning coffee", "place": "harbour cafe", "n": 1])
            func places(_ term: String) async throws -> [String] {
                let reply = try await client.get(
                    "/classes/TestObject", query: ["where": ["place": ["$text": ["$search": ["$term": .string(term)]]]]])
                #expect(reply.status == 200, "\(reply.body)")
                return Support.values(reply, "place").compactMap(\.stringValue)
            }
            _ = try await client.put("/classes/TestObject/\(id)", ["place": "station kiosk", "n": 2])
            #expect(try await Self.subjects(client, "coffee") == ["morning coffee"], "the field left alone is still found")
            #expect(try await places("harbour") == [])
            #expect(try await places("kiosk") == ["station kiosk"])
            let changed = try await client.put("/classes/TestObject/\(id)", ["place": ["__op": "Delete"], "subject": "evening tea"])
            #expect(changed.status == 200, "\(changed.body)")
            #expect(try await places("kiosk") == [], "a removed String leaves the index")
            #expect(try await Self.subjects(client, "coffee") == [])
            #expect(try await Self.subjects(client, "tea") == ["evening tea"])
        }
    }
}
