/// A `$regex` pattern read into a tree, in the subset of PCRE that Parse clients send: literals,
/// `\Q…\E`, `.`, classes `[…]`, `\d \w \s` and their negations, anchors `^ $ \A \z \Z \b \B`,
/// `* + ? {m,n}` (greedy or lazy), groups, alternation, and the options `i m s x` (also inline,
/// as `(?i)` or `(?i:…)`). Backreferences, lookaround, atomic groups, possessive quantifiers and
/// Unicode properties are refused: they have no linear-time match.
package indirect enum RegexNode {
    case empty
    case scalar(Unicode.Scalar, caseless: Bool)
    case any(dotAll: Bool)
    case set(RegexCharacterSet)
    case assertion(RegexAssertion)
    case sequence([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, minimum: Int, maximum: Int?)

    /// Why a pattern was refused; the message is for the client.
    package struct Refusal: Error {
        package let message: String

        package init(message: String) {
            self.message = message
        }
    }

    /// The largest count a `{m,n}` repetition may give.
    package static let maximumRepetition = 1000
    /// The longest pattern accepted, in characters.
    package static let maximumLength = 10_000
    /// How deep groups may nest.
    package static let maximumNesting = 100

    /// Parses `pattern`, with `options` (letters among `imsx`) applying from its start.
    package static func parse(_ pattern: String, options: String) throws(Refusal) -> RegexNode {
        let scalars = Array(pattern.unicodeScalars)
        guard scalars.count <= maximumLength else { throw Refusal(message: "$regex is longer than \(maximumLength) characters") }
        var parser = RegexParser(pattern: scalars)
        parser.flags.apply(options)
        let node = try parser.alternation()
        guard parser.atEnd else { throw Refusal(message: "unbalanced ) in $regex") }
        return node
    }
}

/// A zero-width test between two characters.
package enum RegexAssertion {
    case textStart, textEnd, textEndBeforeNewline, lineStart, lineEnd, wordBoundary, notWordBoundary
}

private struct RegexParser {
    let pattern: [Unicode.Scalar]
    var position = 0
    var flags = RegexFlags()
    private var nesting = 0

    init(pattern: [Unicode.Scalar]) {
        self.pattern = pattern
    }

    var atEnd: Bool { position >= pattern.count }
    private var next: Unicode.Scalar? { atEnd ? nil : pattern[position] }

    private func refuse(_ message: String) -> RegexNode.Refusal { RegexNode.Refusal(message: "$regex: " + message) }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard next == scalar else { return false }
        position += 1
        return true
    }

    mutating func alternation() throws(RegexNode.Refusal) -> RegexNode {
        var branches = [try sequence()]
        while take("|") { branches.append(try sequence()) }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws(RegexNode.Refusal) -> RegexNode {
        var items: [RegexNode] = []
        while true {
            skipExtendedSpace()
            guard let scalar = next, scalar != "|", scalar != ")" else { break }
            guard let atom = try atom() else { continue }
            items.append(try quantified(atom))
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    /// In `x` mode, whitespace and `#` comments outside classes are not part of the pattern.
    private mutating func skipExtendedSpace() {
        guard flags.extended else { return }
        while let scalar = next {
            if scalar.properties.isWhitespace {
                position += 1
            } else if scalar == "#" {
                while let inComment = next, inComment != "\n" { position += 1 }
            } else {
                return
            }
        }
    }

    /// The next atom, or nil for something that matches nothing by itself (an inline option group).
    private mutating func atom() throws(RegexNode.Refusal) -> RegexNode? {
        let scalar = pattern[position]
        position += 1
        switch scalar {
        case "(": return try group()
        case "[": return .set(try characterSet())
        case ".": return .any(dotAll: flags.dotAll)
        case "^": return .assertion(flags.multiline ? .lineStart : .textStart)
        case "$": return .assertion(flags.multiline ? .lineEnd : .textEndBeforeNewline)
        case "\\": return try escape()
        case "*", "+", "?": throw refuse("\(scalar) has nothing to repeat")
        default: return .scalar(scalar, caseless: flags.caseless)
        }
    }

    private mutating func group() throws(RegexNode.Refusal) -> RegexNode? {
        guard nesting < RegexNode.maximumNesting else { throw refuse("groups nest too deep") }
        nesting += 1
        defer { nesting -= 1 }
        let outer = flags
        if take("?") {
            if take(":") {
                // A group that only groups: the same as a capturing one when only whether a match exists counts.
            } else if take("<") || (take("P") && take("<")) {
                guard next != "=", next != "!" else { throw refuse("lookbehind is not supported") }
                while let scalar = next, scalar != ">" { position += 1 }
                guard take(">") else { throw refuse("unterminated group name") }
            } else if take("#") {
                while let scalar = next, scalar != ")" { position += 1 }
                guard take(")") else { throw refuse("unterminated comment") }
                return nil
            } else {
                var on = true
                while let scalar = next, "imsx-".unicodeScalars.contains(scalar) {
                    if scalar == "-" { on = false } else { flags.apply([Character(scalar)], on: on) }
                    position += 1
                }
                // `(?i)` changes the options until the end of the enclosing group.
                if take(")") { return nil }
                guard take(":") else { throw refuse("lookaround, atomic groups and conditionals are not supported") }
            }
        }
        let inner = try alternation()
        flags = outer
        guard take(")") else { throw refuse("missing )") }
        return inner
    }

    /// `atom` with the quantifier that follows it, if any: one per atom, as in PCRE (`a**` is refused).
    private mutating func quantified(_ atom: RegexNode) throws(RegexNode.Refusal) -> RegexNode {
        skipExtendedSpace()
        let bounds: (Int, Int?)
        switch next {
        case "*": bounds = (0, nil)
        case "+": bounds = (1, nil)
        case "?": bounds = (0, 1)
        case "{":
            guard let counted = try countedBounds() else { return atom }
            bounds = counted
        default: return atom
        }
        position += 1
        if take("+") { throw refuse("possessive quantifiers are not supported") }
        _ = take("?")  // Lazy and greedy find the same matches when only whether one exists counts.
        if case .assertion = atom { throw refuse("an anchor cannot be repeated") }
        return .repetition(atom, minimum: bounds.0, maximum: bounds.1)
    }

    /// `{n}`, `{n,}` or `{n,m}` at the position, consumed up to its `}`; nil (nothing consumed) if it
    /// is not one, in which case `{` is a literal. Counts past ``RegexNode/maximumRepetition`` are refused.
    private mutating func countedBounds() throws(RegexNode.Refusal) -> (Int, Int?)? {
        var cursor = position + 1
        func number() -> Int? {
            var digits = ""
            while cursor < pattern.count, let digit = Character(pattern[cursor]).wholeNumberValue, digits.count < 6 {
                digits.append(String(digit))
                cursor += 1
            }
            return Int(digits)
        }
        guard let low = number() else { return nil }
        var high: Int? = low
        if cursor < pattern.count, pattern[cursor] == "," {
            cursor += 1
            high = number()
        }
        guard cursor < pattern.count, pattern[cursor] == "}" else { return nil }
        guard low <= RegexNode.maximumRepetition, (high ?? low) <= RegexNode.maximumRepetition else {
            throw refuse("a repetition count may be at most \(RegexNode.maximumRepetition)")
        }
        guard low <= (high ?? low) else { throw refuse("a repetition range is out of order") }
        position = cursor
        return (low, high)
    }

    private mutating func escape() throws(RegexNode.Refusal) -> RegexNode {
        guard let scalar = next else { throw refuse("the pattern ends with \\") }
        position += 1
        switch scalar {
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.textStart)
        case "z": return .assertion(.textEnd)
        case "Z": return .assertion(.textEndBeforeNewline)
        case "Q":
            var literal: [RegexNode] = []
            while !atEnd, !(pattern[position] == "\\" && position + 1 < pattern.count && pattern[position + 1] == "E") {
                literal.append(.scalar(pattern[position], caseless: flags.caseless))
                position += 1
            }
            if !atEnd { position += 2 }
            return .sequence(literal)
        case "E": return .empty
        default:
            if let set = RegexCharacterSet.shorthand(scalar, caseless: flags.caseless) { return .set(set) }
            return .scalar(try escapedScalar(scalar), caseless: flags.caseless)
        }
    }

    /// The character an escape such as `\n`, `\x41`, `\u0041` or `\.` stands for.
    private mutating func escapedScalar(_ scalar: Unicode.Scalar) throws(RegexNode.Refusal) -> Unicode.Scalar {
        switch scalar {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "e": return "\u{1B}"
        case "a": return "\u{07}"
        case "0": return "\0"
        case "x", "u":
            var digits = ""
            let braced = take("{")
            let width = braced ? 8 : (scalar == "x" ? 2 : 4)
            while digits.count < width, let hex = next, hex.properties.isASCIIHexDigit {
                digits.unicodeScalars.append(hex)
                position += 1
            }
            if braced, !take("}") { throw refuse("unterminated \\\(scalar){…}") }
            guard let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else {
                throw refuse("invalid \\\(scalar) escape")
            }
            return result
        default:
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                throw refuse("\\\(scalar) (backreferences, properties and unknown escapes) is not supported")
            }
            return scalar
        }
    }

    private mutating func characterSet() throws(RegexNode.Refusal) -> RegexCharacterSet {
        var set = RegexCharacterSet(caseless: flags.caseless)
        set.negated = take("^")
        var first = true
        while true {
            guard let scalar = next else { throw refuse("missing ]") }
            position += 1
            if scalar == "]", !first { return set }
            first = false
            if scalar == "[" { throw refuse("nested classes and POSIX classes are not supported") }
            var low = scalar
            if scalar == "\\" {
                guard let escaped = next else { throw refuse("missing ]") }
                position += 1
                if let shorthand = RegexCharacterSet.shorthand(escaped, caseless: false) {
                    set.include(shorthand)
                    continue
                }
                low = try escapedScalar(escaped)
            }
            guard next == "-", position + 1 < pattern.count, pattern[position + 1] != "]" else {
                set.ranges.append(low...low)
                continue
            }
            position += 1
            var high = pattern[position]
            position += 1
            if high == "\\" {
                guard let escaped = next else { throw refuse("missing ]") }
                position += 1
                high = try escapedScalar(escaped)
            }
            guard low <= high else { throw refuse("a class range is out of order") }
            set.ranges.append(low...high)
        }
    }
}
