import Cloudlet

/// A `$text` constraint's `$search`, read as Parse documents it: words (any of them matches),
/// `"quoted phrases"` (every one must appear, words in order), and `-word` or `-"phrase"` (must not
/// appear); `$language`, `$caseSensitive` and `$diacriticSensitive` say how words compare.
///
/// Words are runs of letters and digits (``TextTokens``), so nothing a client writes reaches SQLite
/// as FTS5 syntax: `"`, `*`, `^`, `NEAR`, `AND` or `title:` are punctuation or plain words. Malformed
/// operands answer 107 with Parse Server's messages; a search past the bounds answers 102.
struct TextSearch: SQLiteRowMatcher {
    /// The most characters a `$term` may hold.
    static let maximumTermLength = 1_000
    /// The most words a `$term` may hold, in its words, phrases and negations together.
    static let maximumWords = 64
    /// The match steps a check spends on each byte of the text it reads (``matches(_:steps:)``).
    static let stepsPerByte = 4
    /// The `$language` values that stem English words (Parse's default language is English).
    static let englishNames: Set<String> = ["english", "en"]

    /// The words of which any one must appear (when there is no phrase).
    var words: [String] = []
    /// The phrases that must all appear, each as its words in order.
    var phrases: [[String]] = []
    /// The words and phrases that must not appear.
    var excluded: [[String]] = []
    var caseSensitive = false
    var diacriticSensitive = false
    /// Whether words compare by their English stems (FTS5's `porter`) rather than whole.
    var stemsEnglish = true

    /// Whether the FTS5 index (English stems, case and diacritics folded) decides the match alone;
    /// otherwise it finds the candidates and ``matches(_:)`` decides.
    var isIndexExact: Bool { !caseSensitive && !diacriticSensitive && stemsEnglish }

    /// Reads the operand of `$text`: `{"$search": {"$term": …, "$language"?, "$caseSensitive"?, "$diacriticSensitive"?}}`.
    init(_ operand: ParseValue) throws {
        guard let search = operand.objectValue?["$search"]?.objectValue else {
            throw ParseError.invalidJSON("bad $text: $search, should be object")
        }
        guard let term = search["$term"]?.stringValue, !term.isEmpty else {
            throw ParseError.invalidJSON("bad $text: $term, should be string")
        }
        if let language = search["$language"] {
            guard let name = language.stringValue else { throw ParseError.invalidJSON("bad $text: $language, should be string") }
            stemsEnglish = name.isEmpty || Self.englishNames.contains(name.lowercased())
        }
        caseSensitive = try Self.flag(search["$caseSensitive"], "$caseSensitive")
        diacriticSensitive = try Self.flag(search["$diacriticSensitive"], "$diacriticSensitive")
        guard term.count <= Self.maximumTermLength else {
            throw ParseError.invalidQuery("bad $text: $term is longer than \(Self.maximumTermLength) characters")
        }
        parse(term)
        let wordCount = words.count + (phrases + excluded).reduce(0) { $0 + $1.count }
        guard wordCount <= Self.maximumWords else {
            throw ParseError.invalidQuery("bad $text: $term holds more than \(Self.maximumWords) words")
        }
    }

    private static func flag(_ value: ParseValue?, _ name: String) throws -> Bool {
        guard let value else { return false }
        guard let flag = value.boolValue else { throw ParseError.invalidJSON("bad $text: \(name), should be boolean") }
        return flag
    }

    /// Splits `term` into words, phrases and negations; pieces without a letter or digit drop out.
    private mutating func parse(_ term: String) {
        var rest = Substring(term)
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            let negated = rest.first == "-"
            if negated { rest = rest.dropFirst() }
            let piece: Substring
            let quoted = rest.first == "\""
            if quoted {
                rest = rest.dropFirst()
                let end = rest.firstIndex(of: "\"") ?? rest.endIndex
                piece = rest[..<end]
                rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            } else {
                let end = rest.firstIndex(where: { $0.isWhitespace || $0 == "\"" }) ?? rest.endIndex
                piece = rest[..<end]
                rest = rest[end...]
            }
            let tokens = TextTokens.words(of: piece)
            guard !tokens.isEmpty else { continue }
            if negated {
                excluded.append(tokens)
            } else if quoted {
                phrases.append(tokens)
            } else {
                words += tokens
            }
        }
    }

    /// The FTS5 query that finds the rows this search may match: the phrases (all of them), or else
    /// any of the words; less its negations when the index decides alone. Beside phrases, the words
    /// are an alternative to the first phrase, which they only rank. Every word is a quoted FTS5
    /// string of letters and digits only. Nil when nothing can match (only negations).
    var indexQuery: String? {
        let quoted = { (tokens: [String]) in "\"" + tokens.joined(separator: " ") + "\"" }
        let required: String
        if let first = phrases.first {
            required = phrases.map(quoted).joined(separator: " AND ")
                + (words.isEmpty ? "" : " AND (" + (words.map { quoted([$0]) } + [quoted(first)]).joined(separator: " OR ") + ")")
        } else if !words.isEmpty {
            required = words.map { quoted([$0]) }.joined(separator: " OR ")
        } else {
            return nil
        }
        guard isIndexExact, !excluded.isEmpty else { return "(\(required))" }
        return "(\(required))" + excluded.map { " NOT " + quoted($0) }.joined()
    }

    /// ``matches(_:)``, spending ``stepsPerByte`` of `steps` on each byte of `text` first; throws
    /// once they run out, as a `$regex` does.
    func matches(_ text: String, steps: inout Int) throws -> Bool {
        steps -= text.utf8.count * Self.stepsPerByte
        guard steps >= 0 else { throw RegexProgram.StepsExhausted() }
        return matches(text)
    }

    /// Whether `text` matches, its words compared whole as the flags say (case and diacritics
    /// folded unless the search is sensitive to them): the check of a search the index does not
    /// decide alone. Linear in the words of `text` for each phrase of the search.
    func matches(_ text: String) -> Bool {
        let fold = { (words: [String]) in words.map { TextTokens.folded($0, caseSensitive: caseSensitive, diacriticSensitive: diacriticSensitive) } }
        let found = fold(TextTokens.words(of: Substring(text)))
        let present = Set(found)
        let contains = { (tokens: [String]) -> Bool in
            let sought = fold(tokens)
            guard sought.count > 1 else { return sought.allSatisfy(present.contains) }
            guard sought.allSatisfy(present.contains) else { return false }
            return found.indices.contains { start in
                found[start] == sought[0] && found[start...].starts(with: sought)
            }
        }
        let required = phrases.isEmpty ? words.contains { contains([$0]) } : phrases.allSatisfy(contains)
        return required && !excluded.contains(where: contains)
    }
}
