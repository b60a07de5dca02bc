import Cloudlet
import CloudletRuntime
import Foundation

/// A `$regex` pattern, as the stores read it (``RegexNode``: the subset of PCRE Parse clients
/// send, nothing without a linear-time match), written as a PostgreSQL advanced regular expression
/// with the same meaning: every character not a letter or digit written as its code (`\uXXXX`), `\d
/// \w \s` and word boundaries over ASCII as PCRE has them without Unicode mode, case folded
/// character by character, `.` not matching a newline unless `s`, and counts past PostgreSQL's
/// bound of 255 split into several.
enum PostgresRegex {
    /// The longest expression a pattern may become; a longer one is refused (102).
    static let maximumLength = 65_536

    /// `pattern` with `options` (letters among `imsx`) as an expression; 102 for a pattern the
    /// stores refuse or one too large once written out.
    static func expression(_ pattern: String, options: String) throws -> String {
        let node: RegexNode
        do { node = try RegexNode.parse(pattern, options: options) } catch { throw ParseError.invalidQuery(error.message) }
        var text = ""
        try write(node, into: &text)
        return text
    }

    private static let word = "[0-9A-Za-z_]"
    private static let newline = "\\u000A"

    private static func write(_ node: RegexNode, into text: inout String) throws {
        guard text.utf8.count <= maximumLength else { throw ParseError.invalidQuery("$regex is too large once compiled; use a simpler pattern") }
        switch node {
        case .empty:
            text += "(?:)"
        case .scalar(let scalar, let caseless):
            let variants = caseless ? caseVariants(of: scalar) : [scalar]
            text += variants.count == 1 ? literal(scalar) : "[" + variants.map(literal).joined() + "]"
        case .any(let dotAll):
            text += dotAll ? "." : "[^\(newline)]"
        case .set(let set):
            text += characterSet(set)
        case .assertion(let assertion):
            text += self.assertion(assertion)
        case .sequence(let nodes):
            for node in nodes { try write(node, into: &text) }
        case .alternation(let branches):
            text += "(?:"
            for (index, branch) in branches.enumerated() {
                if index > 0 { text += "|" }
                try write(branch, into: &text)
            }
            text += ")"
        case .repetition(let node, let minimum, let maximum):
            var operand = ""
            try write(node, into: &operand)
            text += repetition("(?:" + operand + ")", minimum: minimum, maximum: maximum)
        }
    }

    /// `operand` repeated `minimum` to `maximum` times (no bound when nil), each count at most 255.
    private static func repetition(_ operand: String, minimum: Int, maximum: Int?) -> String {
        let bound = 255
        var text = ""
        var required = minimum
        while required > bound {
            text += operand + "{\(bound)}"
            required -= bound
        }
        guard let maximum else { return text + operand + "{\(required),}" }
        var optional = maximum - minimum
        text += operand + "{\(required),\(required + min(optional, bound - required))}"
        optional -= min(optional, bound - required)
        while optional > 0 {
            text += operand + "{0,\(min(optional, bound))}"
            optional -= min(optional, bound)
        }
        return text
    }

    /// The characters that fold to the same as `scalar` does, as ``RegexCase`` folds them.
    private static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        var variants = [scalar]
        for variant in RegexCase.variants(of: scalar) + RegexCase.variants(of: RegexCase.folded(scalar)) + [RegexCase.folded(scalar)]
        where !variants.contains(variant) && RegexCase.folded(variant) == RegexCase.folded(scalar) {
            variants.append(variant)
        }
        return variants
    }

    /// A letter or digit as itself, any other character as its code.
    private static func literal(_ scalar: Unicode.Scalar) -> String {
        if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) { return String(Character(scalar)) }
        return scalar.value <= 0xFFFF ? String(format: "\\u%04X", scalar.value) : String(format: "\\U%08X", scalar.value)
    }

    /// A class: its ranges (with their other-case letters) and shorthands in one bracket, each
    /// negated shorthand a bracket of its own, the whole an alternation (negated by a lookahead).
    private static func characterSet(_ set: RegexCharacterSet) -> String {
        var members = set.ranges.flatMap { range in set.caseless ? withCaseVariants(range) : [range] }
            .map { $0.lowerBound == $0.upperBound ? literal($0.lowerBound) : literal($0.lowerBound) + "-" + literal($0.upperBound) }
            .joined()
        var alternatives: [String] = []
        for (shorthand, negated) in set.shorthands {
            if negated { alternatives.append("[^" + characters(shorthand) + "]") } else { members += characters(shorthand) }
        }
        if !members.isEmpty { alternatives.insert("[" + members + "]", at: 0) }
        let union = alternatives.isEmpty ? "(?!.).": "(?:" + alternatives.joined(separator: "|") + ")"
        return set.negated ? "(?:(?!" + union + ").)" : union
    }

    /// A shorthand's characters, for a bracket.
    private static func characters(_ shorthand: RegexCharacterSet.Shorthand) -> String {
        switch shorthand {
        case .digit: "0-9"
        case .word: "0-9A-Za-z_"
        case .space: "\\u0020\\u0009\\u000A\\u000D\\u000B\\u000C"
        }
    }

    /// `range`, and for the letters in it their other case (ASCII; a short range of others one by one).
    private static func withCaseVariants(_ range: ClosedRange<Unicode.Scalar>) -> [ClosedRange<Unicode.Scalar>] {
        var ranges = [range]
        for (letters, offset) in [(UInt32(0x61)...0x7A, -32), (UInt32(0x41)...0x5A, 32)] {
            let low = max(range.lowerBound.value, letters.lowerBound), high = min(range.upperBound.value, letters.upperBound)
            if low <= high { ranges.append(Unicode.Scalar(UInt32(Int(low) + offset))!...Unicode.Scalar(UInt32(Int(high) + offset))!) }
        }
        if range.upperBound.value > 0x7F, range.upperBound.value - max(range.lowerBound.value, 0x80) < 256 {
            for value in max(range.lowerBound.value, 0x80)...range.upperBound.value {
                guard let scalar = Unicode.Scalar(value) else { continue }
                ranges += RegexCase.variants(of: scalar).map { $0...$0 }
            }
        }
        return ranges
    }

    private static func assertion(_ assertion: RegexAssertion) -> String {
        switch assertion {
        case .textStart: "^"
        case .textEnd: "$"
        case .textEndBeforeNewline: "(?=\(newline)?$)"
        case .lineStart: "(?:^|(?<=\(newline)))"
        case .lineEnd: "(?=\(newline)|$)"
        case .wordBoundary: "(?:(?<=\(word))(?!\(word))|(?<!\(word))(?=\(word)))"
        case .notWordBoundary: "(?:(?<=\(word))(?=\(word))|(?<!\(word))(?!\(word)))"
        }
    }
}
