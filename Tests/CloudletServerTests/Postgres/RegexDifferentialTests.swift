import Cloudlet
import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletSQLite

/// `$regex` on both stores: SQLite's linear-time matcher and the expression PostgreSQL runs
/// (``PostgresRegex``) must find the same strings for every pattern and option of a corpus.
@Suite struct RegexDifferentialTests {
    private static let texts = [
        "apple", "Apple pie", "APPLE", "pineapple", "apple\npie", "line one\nline two\n", "a.b", "a\nb", "axb", "colour", "color",
        "under_score", "x-ray", "123", "12345", "Éclair", "éclair", "straße", "tab\there", "end\n", "", "a+b", "[brackets]",
        String(repeating: "x", count: 300), String(repeating: "a", count: 40) + "!", "café au lait", "日本語テキスト",
    ]

    /// Each a pattern and its options.
    private static let patterns: [(String, String)] = [
        ("^a", ""), ("e$", ""), ("apple", "i"), ("(?i)apple", ""), ("\\bpie\\b", ""), ("\\Bpp", ""), ("[a-c]+", ""), ("[^a-z]", ""),
        ("^\\d{2,3}$", ""), ("x{300}", ""), ("x{256,}", ""), ("^x{100,299}$", ""), ("a.b", ""), ("a.b", "s"), ("(?s)a.b", ""),
        ("^line", "m"), ("two$", "m"), ("two$", ""), ("e\\Z", ""), ("e\\z", ""), ("\\Aline", ""), ("\\Qa.b\\E", ""), ("[\\W]", ""),
        ("[^\\d\\s]+$", ""), ("é", ""), ("É", "i"), ("colou?r", ""), ("a|b|c", ""), ("(ab)*c", ""), ("^(a+)+$", ""), ("^(a|aa)+!$", ""),
        ("\\s", ""), ("\\S\\s\\S", ""), ("[A-Z]", "i"), ("STRASSE", "i"), ("ß", "i"), ("a b", "x"), ("\\x41", "i"), ("\\u00e9", ""),
        ("[\\d_]", ""), ("\\w+_\\w+", ""), ("^$", ""), ("^", ""), ("\\.", ""), ("\\[", ""), ("テキ", ""), ("^.{7}$", ""),
    ]

    @Test func everyPatternFindsTheSameStringsOnBothStores() async throws {
        try await TemporaryStorage.with { sqliteDatabase, _ in
            try await TemporaryPostgres.with { postgresDatabase, schema in
                let sqlite = SQLiteObjectStore(sqliteDatabase)
                let postgres = try await PostgresObjectStore(postgresDatabase, schema: schema)
                for (n, text) in Self.texts.enumerated() {
                    var object = ParseObject(className: "Text", fields: ["s": .string(text)])
                    object.objectId = String(format: "t%02d", n)
                    object.createdAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(n))
                    object.updatedAt = object.createdAt
                    try await sqlite.insert(object, outbox: nil)
                    try await postgres.insert(object)
                }
                var discriminating = 0
                for (pattern, options) in Self.patterns {
                    var operators: [String: ParseValue] = ["$regex": .string(pattern)]
                    if !options.isEmpty { operators["$options"] = .string(options) }
                    let query = StorageQuery(query: ParseQuery("Text", constraints: ["s": .object(operators)], limit: 100), readerIdentities: nil)
                    let expected = try await sqlite.find(query).map(\.objectId)
                    let found = try await postgres.find(query).map(\.objectId)
                    #expect(found == expected, "/\(pattern)/\(options)")
                    if !expected.isEmpty, expected.count < Self.texts.count { discriminating += 1 }
                }
                #expect(discriminating >= Self.patterns.count - 5, "nearly every pattern finds some strings and not others")
            }
        }
    }

    @Test func aPatternTheStoresRefuseIsRefusedWith102() async throws {
        try await TemporaryPostgres.with { database, schema in
            let store = try await PostgresObjectStore(database, schema: schema)
            for pattern in ["(a)\\1", "(?=a)", "a++", "(", "\\p{L}"] {
                let error = await #expect(throws: ParseError.self) {
                    try await store.find(StorageQuery(query: ParseQuery("Text", constraints: ["s": ["$regex": .string(pattern)]]), readerIdentities: nil))
                }
                #expect(error?.code == 102, "\(pattern)")
            }
        }
    }
}
