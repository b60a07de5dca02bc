import Cloudlet
import Testing

@Suite("JSON reading and writing")
struct JSONTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}} "#)
        #expect(value["a"] == [1, -2.5, 300, true, false, nil])
        #expect(value["b"]?["c"] == "d\né😀")
    }

    @Test func writesCompactSortedJSONThatReadsBack() throws {
        let value: ParseValue = ["z": 1, "a": ["x": "q\"uote\\", "n": 2.5], "list": [true, nil]]
        let text = JSONWriter.string(value)
        #expect(text == #"{"a":{"n":2.5,"x":"q\"uote\\"},"list":[true,null],"z":1}"#)
        #expect(try JSONParser.parse(text) == value)
    }

    @Test(arguments: [
        "", "k3XqL9aB2c", "2026-11-27T19:00:00.000Z", "Zürich 😀", "say \"hi\"", "back\\slash", "tab\there", "line\nbreak",
        "\u{01}", "\u{7F}",
    ])
    func aQuotedTextIsItsJSONString(_ text: String) throws {
        let quoted = JSONWriter.quoted(text)
        #expect(quoted == JSONWriter.string(.string(text)))
        #expect(try JSONParser.parse(quoted) == .string(text))
    }

    @Test func writesWholeNumbersWithoutAFraction() {
        #expect(JSONWriter.string([1, 2.0, -3, 0.5]) == "[1,2,-3,0.5]")
    }

    @Test func writesUpToALimitAndCountsWithoutWriting() {
        let element: ParseValue = ["text": .string(String(repeating: "x", count: 1000))]
        let value = ParseValue.array(Array(repeating: element, count: 1000))
        let full = JSONWriter.bytes(value)
        #expect(JSONWriter.byteCount(value) == full.count)
        #expect(JSONWriter.bytes(value, limit: full.count) == full)
        #expect(JSONWriter.bytes(value, limit: full.count - 1) == nil)
        #expect(JSONWriter.bytes(value, limit: 10_000) == nil)
        #expect(JSONWriter.bytes("short", limit: 3) == nil)
    }

    @Test func escapesControlCharacters() throws {
        let text = JSONWriter.string(.string("a\u{01}b\tc"))
        #expect(text == #""a\u0001b\tc""#)
        #expect(try JSONParser.parse(text) == .string("a\u{01}b\tc"))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "01", "1.", "-", "tru", "\"abc", "{\"a\":1}x", "[\"\\q\"]",
        "\"\\ud800\"", "NaN", "{'a':1}", "\"a\u{01}\"",
    ])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }

    @Test func refusesNestingDeeperThanTheBound() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let failure = try #require(throws: JSONParser.Failure.self) { try JSONParser.parse(deep) }
        #expect(failure.reason.contains("nested deeper"))
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(allowed) }
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22],  // a byte that is never UTF-8
        [0x22, 0x61, 0xF0, 0x90, 0x80, 0x62, 0x22],  // a 4-byte sequence cut after 3
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // a surrogate encoded in UTF-8
        [0x22, 0x5C, 0x6E, 0xC3, 0x22],  // after an escape, a 2-byte sequence cut after 1
    ] as [[UInt8]])
    func refusesInvalidUTF8(_ bytes: [UInt8]) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(bytes) }
    }

    @Test func readsUTF8StringsWithAndWithoutEscapes() throws {
        #expect(try JSONParser.parse(Array(#""plain ascii""#.utf8)) == "plain ascii")
        #expect(try JSONParser.parse(Array(#""café 😀""#.utf8)) == "café 😀")
        #expect(try JSONParser.parse(Array(#""café\n😀""#.utf8)) == "café\n😀")
    }

    @Test func readsTheMemberNamesOfObjectsInTheOrderOfTheText() throws {
        let text = Array(#" {"pipeline": [{"$match": {"z": 1, "a": 2}}, {"$sort": {"b": 1, "a": -1, "b": -1, "c": 1}}], "x": {"y": 1}} "#.utf8)
        let paths: [[JSONParser.PathStep]] = [
            [.member("pipeline"), .element(1), .member("$sort")], [.member("pipeline"), .element(0), .member("$match")], [],
            [.member("x"), .member("y")], [.member("pipeline"), .element(2)], [.member("missing")], [.member("pipeline")],
        ]
        #expect(try JSONParser.memberNames(in: text, at: paths) == [["b", "a", "c"], ["z", "a"], ["pipeline", "x"], nil, nil, nil, nil])
        // A repeated member is followed to its last value, the one parse keeps.
        let repeated = Array(#"{"s": {"a": 1, "b": 1}, "t": 1, "s": {"b": 1, "a": 1}, "u": {"v": 1}, "u": 2}"#.utf8)
        #expect(try JSONParser.memberNames(in: repeated, at: [[.member("s")], [.member("u")]]) == [["b", "a"], nil])
        #expect(throws: JSONParser.Failure.self) { try JSONParser.memberNames(in: Array(#"{"s": {"a": 1}"#.utf8), at: [[.member("s")]]) }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.memberNames(in: Array(deep.utf8), at: [[.element(0)]]) }
    }
}
