import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Testing

@Suite("Full-text search under bad and hostile input")
struct TextSearchBoundsTests {
    @Test("FTS5 syntax in a search is literal text: never a SQL error, never another column", arguments: TestStore.allCases)
    func hostileTermsAreLiteral(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await TextSearchTests.seed(client)
            try await Support.create(client, "TestObject", ["subject": "NEAR the AND gate", "secret": "espresso"])
            let hostile = [
                "\"", "\"\"", "\"coffee", "coffee\"", "*", "coffee*", "^coffee", "NEAR(coffee cream)", "coffee AND cream",
                "coffee OR", "NOT coffee", "subject:coffee", "secret:espresso", "{subject secret}:espresso", "(", ")", "coffee)",
                "'; DROP TABLE objects; --", "-", "--coffee", "- -", "\u{0}", "caf\u{301}", "🙂", "a\"b\"c", "+coffee",
            ]
            for term in hostile {
                let reply = try await client.get("/classes/TestObject", query: ["where": TextSearchTests.search(term)])
                #expect(reply.status == 200, "\(term.debugDescription): \(reply.body)")
            }
            #expect(try await TextSearchTests.subjects(client, "NEAR") == ["NEAR the AND gate"], "operators are words")
            #expect(try await TextSearchTests.subjects(client, "and") == ["NEAR the AND gate", "coffee and cream"])
            #expect(try await TextSearchTests.subjects(client, "secret:espresso") == [], "a column filter is two words, in this field only")
            #expect(try await TextSearchTests.subjects(client, "coffee*") == ["Coffee Shopping", "coffee", "coffee and cream"])
            #expect(try await TextSearchTests.subjects(client, "cafe\u{301}") == ["Cafe con Leche", "Café Con Leche"])
            #expect(try await Support.masterCount(client, "TestObject") == TextSearchTests.subjects.count + 1, "nothing lost")
        }
    }

    @Test("malformed $text operands answer Parse Server's 107; bounds and misplaced $text answer 102", arguments: TestStore.allCases)
    func badOperands(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "TestObject", ["subject": "coffee", "n": 1, "place": ["city": "Lisbon"]])
            let malformed: [(ParseValue, String)] = [
                (["subject": ["$text": ["$search": true]]], "bad $text: $search, should be object"),
                (["subject": ["$text": ["$search": ["$term": 1]]]], "bad $text: $term, should be string"),
                (["subject": ["$text": ["$search": ["$term": ""]]]], "bad $text: $term, should be string"),
                (TextSearchTests.search("leche", ["$language": true]), "bad $text: $language, should be string"),
                (TextSearchTests.search("leche", ["$caseSensitive": "string"]), "bad $text: $caseSensitive, should be boolean"),
                (TextSearchTests.search("leche", ["$diacriticSensitive": "string"]), "bad $text: $diacriticSensitive, should be boolean"),
            ]
            for (constraints, message) in malformed {
                let reply = try await client.get("/classes/TestObject", query: ["where": constraints])
                Support.expectError(reply, status: 400, code: 107)
                #expect(reply["error"]?.stringValue == message)
            }
            let refused: [ParseValue] = [
                TextSearchTests.search(String(repeating: "a", count: 1_001)),
                TextSearchTests.search(Array(repeating: "word", count: 65).joined(separator: " ")),
                TextSearchTests.search("1", field: "n"),
                TextSearchTests.search("lisbon", field: "place"),
                TextSearchTests.search("lisbon", field: "place.city"),
                TextSearchTests.search("abc", field: "objectId"),
                ["$or": [TextSearchTests.search("coffee"), TextSearchTests.search("tea")]],
            ]
            for constraints in refused {
                Support.expectError(try await client.get("/classes/TestObject", query: ["where": constraints]), status: 400, code: 102)
            }
            let onInstallations = try await client.get("/classes/_Installation", query: ["where": TextSearchTests.search("ios", field: "deviceType")], master: true)
            Support.expectError(onInstallations, status: 400, code: 102)
            // A field never written matches nothing, as in Parse Server.
            #expect(try await client.get("/classes/TestObject", query: ["where": TextSearchTests.search("coffee", field: "other")])["results"] == [])
        }
    }

    @Test("inner queries, a pipeline's $match and distinct check $text as a query does; each inner query may hold its own $text", arguments: TestStore.allCases)
    func textInNestedQueries(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            let oslo = try await Support.create(client, "Teams", ["city": "Oslo fjord", "rank": 1])
            let rome = try await Support.create(client, "Teams", ["city": "Rome", "rank": 2])
            for (name, team, home) in [("ann smith", oslo, "Oslo fjord"), ("bob smith", rome, "Rome"), ("cid jones", oslo, "Rome")] {
                try await Support.create(client, "Players", ["name": .string(name), "team": .pointer(className: "Teams", objectId: team), "home": .string(home)])
            }
            // $text on a Number field: the same 102 at every level, a query's count too.
            let onNumber = TextSearchTests.search("1", field: "rank")
            let topLevel = try await client.get("/classes/Teams", query: ["where": onNumber])
            Support.expectError(topLevel, status: 400, code: 102)
            let message = try #require(topLevel["error"]?.stringValue)
            let inner: ParseValue = ["className": "Teams", "where": onNumber]
            let nested: [(String, [String: ParseValue])] = [
                ("/classes/Players", ["where": ["team": ["$inQuery": inner]]]),
                ("/classes/Players", ["where": ["team": ["$notInQuery": inner]], "count": "1", "limit": "0"]),
                ("/classes/Players", ["where": ["home": ["$select": ["query": inner, "key": "city"]]]]),
                ("/classes/Players", ["where": ["$or": [["home": ["$dontSelect": ["query": inner, "key": "city"]]]]]]),
                ("/aggregate/Teams", ["pipeline": [["$match": onNumber]]]),
                ("/aggregate/Players", ["pipeline": [["$match": ["team": ["$inQuery": inner]]], ["$count": "n"]]]),
                ("/aggregate/Teams", ["distinct": "city", "where": onNumber]),
            ]
            for (path, query) in nested {
                let reply = try await client.get(path, query: query, master: true)
                Support.expectError(reply, status: 400, code: 102)
                #expect(reply["error"]?.stringValue == message, "\(path) \(query): \(reply.body)")
            }
            // One $text per query, an inner query being a query of its own (as Parse Server runs it).
            let smithInOslo: ParseValue = [
                "name": ["$text": ["$search": ["$term": "smith"]]],
                "team": ["$inQuery": ["className": "Teams", "where": TextSearchTests.search("oslo", field: "city")]],
            ]
            let found = try await client.get("/classes/Players", query: ["where": smithInOslo, "order": "$score"])
            #expect(Support.values(found, "name") == ["ann smith"], "\(found.body)")
            let counted = try await AggregateTests.results(client, ["pipeline": [["$match": smithInOslo], ["$count": "n"]]], className: "Players")
            #expect(counted == [["n": 1]])
            let twoInOne: ParseValue = ["className": "Teams", "where": ["$or": [TextSearchTests.search("oslo", field: "city"), TextSearchTests.search("rome", field: "city")]]]
            let refused = try await client.get("/classes/Players", query: ["where": ["team": ["$inQuery": twoInOne]]])
            Support.expectError(refused, status: 400, code: 102)
            let afterGroup = AggregateTests.pipeline(["$group": ["_id": "$home"]], ["$match": TextSearchTests.search("oslo", field: "name")])
            Support.expectError(try await client.get("/aggregate/Players", query: afterGroup, master: true), status: 400, code: 102)
        }
    }

    @Test("a client searches users by username, never by a protected field such as email", arguments: TestStore.allCases)
    func protectedFieldsStayUnsearchable(store: TestStore) async throws {
        try await store.withRouter(registry: HookRegistry()) { client in
            _ = try await client.post("/users", ["username": "ada lovelace", "password": "pw", "email": "ada@example.com"])
            let byName = try await client.get("/users", query: ["where": TextSearchTests.search("lovelace", field: "username")])
            #expect(Support.values(byName, "username") == ["ada lovelace"])
            let byEmail = try await client.get("/users", query: ["where": TextSearchTests.search("example", field: "email")])
            Support.expectError(byEmail, status: 403, code: 119)
        }
    }

    @Test("a hook's store searches with ParseQuery.matchesText, ordered by $score", arguments: TestStore.allCases)
    func hookStoreSearches(store: TestStore) async throws {
        var hooks = HookRegistry()
        hooks.function("search") { request in
            let query = ParseQuery("Notes").matchesText(key: "body", text: request.params["term"]?.stringValue ?? "").order(by: "$score")
            return .array(try await request.store.find(query).compactMap { $0["body"] })
        }
        let check = { @Sendable (harness: HookHarness) in
            for body in ["tea", "coffee and tea", "coffee coffee"] { try await harness.create("Notes", ["body": .string(body)]) }
            #expect(try await harness.call("search", ["term": "coffee"]) == ["coffee coffee", "coffee and tea"])
            #expect(try await harness.call("search", ["term": "tea -coffee"]) == ["tea"])
        }
        try await check(try HookHarness(registry: hooks))
        try await HookHarness.withInMemoryWorkers(registry: hooks) { harness in try await check(harness) }
        let query = ParseQuery("Notes").matchesText(key: "body", text: "T", language: "fr", caseSensitive: true, diacriticSensitive: false)
        #expect(query.constraints["body"] == ["$text": ["$search": ["$term": "T", "$language": "fr", "$caseSensitive": true, "$diacriticSensitive": false]]])
    }
}
