import Foundation

/// Words as `$text` compares them: runs of letters and digits, everything else separating them, as
/// FTS5's `unicode61` tokenizer splits the indexed text.
enum TextTokens {
    /// The words of `text`, in order.
    static func words(of text: Substring) -> [String] {
        text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// `word` as compared: lowercased unless `caseSensitive`, its diacritics removed unless
    /// `diacriticSensitive`.
    static func folded(_ word: String, caseSensitive: Bool, diacriticSensitive: Bool) -> String {
        var word = word
        if !caseSensitive { word = word.lowercased() }
        if !diacriticSensitive { word = word.folding(options: .diacriticInsensitive, locale: nil) }
        return word
    }
}

extension TextSearch {
    /// The search as one string for the SQL function that checks it (``SQLiteTextIndex/matchFunction``):
    /// the flags, the words, the phrases and the negations, separated by characters no word holds.
    var encoded: String {
        let list = { (groups: [[String]]) in groups.map { $0.joined(separator: " ") }.joined(separator: ";") }
        return (caseSensitive ? "1" : "0") + (diacriticSensitive ? "1" : "0") + "|" + words.joined(separator: " ")
            + "|" + list(phrases) + "|" + list(excluded)
    }

    /// The search ``encoded`` holds; nil if it is not one.
    init?(encoded: String) {
        let parts = encoded.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].count == 2 else { return nil }
        let groups = { (part: Substring) in part.split(separator: ";").map { $0.split(separator: " ").map(String.init) } }
        caseSensitive = parts[0].first == "1"
        diacriticSensitive = parts[0].last == "1"
        stemsEnglish = false
        words = parts[1].split(separator: " ").map(String.init)
        phrases = groups(parts[2])
        excluded = groups(parts[3])
    }
}
