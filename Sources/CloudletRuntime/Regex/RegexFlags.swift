/// The options in force at a point of a pattern.
package struct RegexFlags {
    package var caseless = false, multiline = false, dotAll = false, extended = false

    package mutating func apply(_ letters: some Sequence<Character>, on: Bool = true) {
        for letter in letters {
            switch letter {
            case "i": caseless = on
            case "m": multiline = on
            case "s": dotAll = on
            case "x": extended = on
            default: break
            }
        }
    }
}
