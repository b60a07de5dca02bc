import Cloudlet
import CloudletRuntime

/// A `$text` search as the SQLite store runs it: the FTS5 query that finds its candidates, and the
/// word-by-word check of a search the index does not decide alone.
extension TextSearch: SQLiteRowMatcher {
    /// The match steps a check spends on each byte of the text it reads (``matches(_:steps:)``).
    static let stepsPerByte = 4

    /// Whether the FTS5 index (English stems, case and diacritics folded) decides the match alone;
    /// otherwise it finds the candidates and ``matches(_:)`` decides.
    var isIndexExact: Bool { !caseSensitive && !diacriticSensitive && stemsEnglish }

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
