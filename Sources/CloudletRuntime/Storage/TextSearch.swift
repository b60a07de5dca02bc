import Cloudlet

/// A `$text` constraint's `$search`, read as Parse documents it: words (any of them matches),
/// `"quoted phrases"` (every one must appear, words in order), and `-word` or `-"phrase"` (must not
/// appear); `$language`, `$caseSensitive` and `$diacriticSensitive` say how words compare.
///
/// Words are runs of letters and digits (``TextTokens``), so nothing a client writes reaches a
/// store as search syntax: `"`, `*`, `^`, `NEAR`, `AND`, `&`, `!` or `title:` are punctuation or
/// plain words. Malformed operands answer 107 with Parse Server's messages; a search past the
/// bounds answers 102. Each store matches the words its own way (SQLite's FTS5 index, PostgreSQL's
/// `tsvector`).
package struct TextSearch: Sendable {
    /// The most characters a `$term` may hold.
    package static let maximumTermLength = 1_000
    /// The most words a `$term` may hold, in its words, phrases and negations together.
    package static let maximumWords = 64
    /// The `$language` values that stem English words (Parse's default language is English).
    package static let englishNames: Set<String> = ["english", "en"]

    /// The words of which any one must appear (when there is no phrase).
    package var words: [String] = []
    /// The phrases that must all appear, each as its words in order.
    package var phrases: [[String]] = []
    /// The words and phrases that must not appear.
    package var excluded: [[String]] = []
    package var caseSensitive = false
    package var diacriticSensitive = false
    /// Whether words compare by their English stems (SQLite FTS5's `porter`, PostgreSQL's English
    /// snowball stemmer) rather than whole.
    package var stemsEnglish = true

    /// Reads the operand of `$text`: `{"$search": {"$term": …, "$language"?, "$caseSensitive"?, "$diacriticSensitive"?}}`.
    package init(_ operand: ParseValue) throws {
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

    /// Whether `$text` may search the objects of `className`: every class of the app, and of
    /// Parse's own classes those an app searches (users and roles); the others (sessions,
    /// installations, push and job statuses) hold no text to search.
    package static func isSearchable(_ className: String) -> Bool {
        !className.hasPrefix("_") || ["_User", "_Role"].contains(className)
    }
}
