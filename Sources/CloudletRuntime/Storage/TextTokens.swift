import Foundation

/// Words as `$text` compares them: runs of letters and digits, everything else separating them, as
/// SQLite's FTS5 `unicode61` tokenizer splits the indexed text.
package enum TextTokens {
    /// The words of `text`, in order.
    package static func words(of text: Substring) -> [String] {
        text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// `word` as compared: lowercased unless `caseSensitive`, its diacritics removed unless
    /// `diacriticSensitive`.
    package static func folded(_ word: String, caseSensitive: Bool, diacriticSensitive: Bool) -> String {
        var word = word
        if !caseSensitive { word = word.lowercased() }
        if !diacriticSensitive { word = word.folding(options: .diacriticInsensitive, locale: nil) }
        return word
    }
}
