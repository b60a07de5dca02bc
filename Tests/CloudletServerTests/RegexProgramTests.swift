import Foundation
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

@Suite("$regex: the linear-time matcher")
struct RegexProgramTests {
    private static func matches(_ pattern: String, _ text: String, options: String = "") throws -> Bool {
        var steps = 10_000_000
        return try RegexProgram(pattern: pattern, options: options).matches(text, steps: &steps)
    }

    /// The answers of the system's backtracking engine, for the subset both accept.
    private static func expected(_ pattern: String, _ text: String, options: String) throws -> Bool {
        let full = (options.isEmpty ? "" : "(?\(options))") + pattern
        let expression = try NSRegularExpression(pattern: full)
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test(
        "agrees with a backtracking engine on the patterns clients send",
        arguments: [
            ("^abc", ""), ("abc$", ""), ("b.d", ""), ("b.d", "s"), ("^[a-c]+$", ""), ("[^a-z]", ""), ("\\d{2,3}", ""),
            ("\\w+@\\w+\\.com", ""), ("^(a+)+$", ""), ("colou?r", ""), ("(cat|dog)s?$", ""), ("^HELLO", "i"),
            ("^line2$", "m"), ("^line2$", ""), ("\\bword\\b", ""), ("\\Bor", ""), ("^\\Qa.b*c\\E", ""), ("a{3}", ""),
            ("a{2,}b", ""), ("(?i)école", ""), ("[\\s,]+x", ""), ("^(?:ab)*$", ""), ("x*", ""), ("^$", ""),
            ("a b # comment\n c", "x"), ("[.]", ""), ("\\x41\\u0042", ""), ("é", "i"), ("[A-Z]{2}\\d", "i"),
            ("end\\Z", ""), ("\\Astart", ""), ("(a|ab)(c|bcd)(d*)", ""), ("[a\\-z]", ""),
        ])
    func agreesWithBacktracking(_ pattern: String, _ options: String) throws {
        let texts = [
            "", "abc", "xabc", "abd", "b\nd", "bcd", "aaab", "aaaa", "12", "a1234", "joe@example.com", "color", "colour",
            "cats", "dogs!", "hello world", "line1\nline2\nline3", "a word here", "world", "a.b*c and more", "straße",
            "x, y x", "abab", "aba", "ÉCOLE", "AB1", "ab1", "the end\n", "start here", "abcd", "-", "]", "AB",
            "abc", "a bc",
        ]
        for text in texts {
            let ours = try Self.matches(pattern, text, options: options)
            let theirs = try Self.expected(pattern, text, options: options)
            #expect(ours == theirs, "/\(pattern)/\(options) on \(text.debugDescription): ours \(ours), expected \(theirs)")
        }
    }

    @Test("catastrophic patterns cost steps in proportion to the text, not exponential time")
    func catastrophicPatternsAreLinear() throws {
        let text = String(repeating: "a", count: 40) + "!"
        var steps = Int.max
        let program = try RegexProgram(pattern: "^(a+)+$")
        #expect(try program.matches(text, steps: &steps) == false)
        let used = Int.max - steps
        #expect(used < 41 * (program.instructions.count + 1) * 2, "used \(used) steps")
    }

    @Test("a match stops when its steps run out")
    func stepsRunOut() throws {
        var steps = 1000
        let program = try RegexProgram(pattern: "(a|aa)*b")
        #expect(throws: RegexProgram.StepsExhausted.self) {
            try program.matches(String(repeating: "a", count: 10_000), steps: &steps)
        }
        #expect(steps <= 0)
    }

    @Test(
        "backreferences, lookaround, possessive quantifiers and unknown escapes are refused",
        arguments: ["(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(?>a)", "a*+", "\\p{L}", "\\k<x>", "[[:alpha:]]", "(a", "a)", "*a", "a**", "a{5000}"])
    func refused(_ pattern: String) {
        #expect(throws: RegexNode.Refusal.self) { try RegexProgram(pattern: pattern) }
    }

    @Test("patterns too large, too long or nested too deep are refused, not compiled")
    func tooLarge() {
        #expect(throws: RegexNode.Refusal.self) { try RegexProgram(pattern: "((a{1000}){1000}){1000}") }
        #expect(throws: RegexNode.Refusal.self) { try RegexProgram(pattern: String(repeating: "(", count: 5000) + "a" + String(repeating: ")", count: 5000)) }
        #expect(throws: RegexNode.Refusal.self) { try RegexProgram(pattern: String(repeating: "a", count: 20_000)) }
    }
}
