/// The characters a class such as `[a-z_]`, `[^\d]` or `\w` matches.
package struct RegexCharacterSet {
    /// Shorthand classes, as in PCRE without Unicode mode: ASCII digits, word characters and spaces.
    package enum Shorthand {
        case digit, word, space

        package func contains(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .digit: return ("0"..."9").contains(scalar)
            case .word: return scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            case .space:
                switch scalar {
                case " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}": return true
                default: return false
                }
            }
        }
    }

    package var ranges: [ClosedRange<Unicode.Scalar>] = []
    package var shorthands: [(Shorthand, negated: Bool)] = []
    package var negated = false
    package var caseless: Bool

    package init(caseless: Bool) {
        self.caseless = caseless
    }

    /// `\d \D \w \W \s \S` as a set; nil for any other escape letter.
    package static func shorthand(_ letter: Unicode.Scalar, caseless: Bool) -> RegexCharacterSet? {
        let kinds: [Unicode.Scalar: (Shorthand, Bool)] = [
            "d": (.digit, false), "D": (.digit, true), "w": (.word, false), "W": (.word, true), "s": (.space, false),
            "S": (.space, true),
        ]
        guard let (kind, negated) = kinds[letter] else { return nil }
        var set = RegexCharacterSet(caseless: caseless)
        set.shorthands = [(kind, negated)]
        return set
    }

    /// Adds the members of `other` (a shorthand such as `\d` written inside a class).
    package mutating func include(_ other: RegexCharacterSet) {
        ranges += other.ranges
        shorthands += other.shorthands
    }

    package func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = directlyContains(scalar)
        if !found, caseless {
            found = RegexCase.variants(of: scalar).contains { directlyContains($0) }
        }
        return found != negated
    }

    private func directlyContains(_ scalar: Unicode.Scalar) -> Bool {
        ranges.contains { $0.contains(scalar) } || shorthands.contains { $0.0.contains(scalar) != $0.negated }
    }
}

/// Case folding for the `i` option, one character at a time.
package enum RegexCase {
    /// The lowercase form of `scalar` when it is one character; `scalar` itself otherwise.
    package static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }
        return single(scalar.properties.lowercaseMapping) ?? scalar
    }

    /// The other-case forms of `scalar` (lower and upper), for matching classes without case.
    package static func variants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        if scalar.isASCII {
            guard scalar.properties.isAlphabetic else { return [] }
            return [Unicode.Scalar(scalar.value ^ 0x20)!]
        }
        return [single(scalar.properties.lowercaseMapping), single(scalar.properties.uppercaseMapping)].compactMap { $0 }
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
