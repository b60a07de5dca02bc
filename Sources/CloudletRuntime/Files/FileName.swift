import Cloudlet

/// The names of stored files: a client names a file when it uploads it (`POST /files/:name`), and
/// the server stores it as `<32 random hex digits>_<name>`, the name every later URL uses.
///
/// Both are checked here, as bytes, before any path is made of them: a name is 1–128 of Parse
/// Server's characters (letters, digits, `_`, `-`, `.`, `@`, `~` and spaces) and starts with a
/// letter, a digit or `_`, so it can never be `.`, `..`, hold a `/`, a `\`, a NUL, a `%` or any
/// byte outside ASCII. A name that arrives percent-encoded is decoded once, and then checked.
public enum FileName {
    /// The longest name a client may give.
    public static let maximumLength = 128
    /// How many hex digits the random prefix of a stored name has (128 bits).
    package static let prefixLength = 32

    /// The client's `name`, decoded once from percent-encoding and checked. Throws 122 otherwise.
    public static func uploaded(_ name: String) throws(ParseError) -> String {
        let decoded = try percentDecoded(name)
        guard isValid(decoded.utf8) else { throw invalid }
        return decoded
    }

    /// A new stored name for the client's checked `name`: a random, unguessable prefix, `_`, the name.
    package static func stored(for name: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var prefix = [UInt8]()
        prefix.reserveCapacity(prefixLength)
        for _ in 0..<prefixLength / 16 {
            var bits = generator.next()
            for _ in 0..<16 {
                prefix.append(hex[Int(bits & 0xF)])
                bits >>= 4
            }
        }
        return String(decoding: prefix, as: UTF8.self) + "_" + name
    }

    /// The stored name in a URL (`name`, decoded once), if it is one the server could have made.
    /// Throws 122 otherwise: nothing is looked up for it.
    public static func storedName(_ name: String) throws(ParseError) -> String {
        let decoded = try percentDecoded(name)
        let bytes = Array(decoded.utf8)
        guard bytes.count > prefixLength + 1, bytes[prefixLength] == UInt8(ascii: "_"),
            bytes[..<prefixLength].allSatisfy(isLowercaseHex), isValid(bytes[(prefixLength + 1)...])
        else { throw invalid }
        return decoded
    }

    /// Whether `name` could be a stored name (for listing a store's folder).
    static func isStoredName(_ name: String) -> Bool {
        (try? storedName(name)) == name
    }

    package static let invalid = ParseError(code: 122, message: "Filename contains invalid characters.", httpStatus: 400)

    private static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= maximumLength, isLetterOrDigit(first) || first == UInt8(ascii: "_") else {
            return false
        }
        return bytes.allSatisfy { isLetterOrDigit($0) || Self.punctuation.contains($0) }
    }

    private static let punctuation: Set<UInt8> = Set("_-.@~ ".utf8)

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// `name` with `%XX` sequences decoded once; a `%` not followed by two hex digits, or bytes that
    /// are not UTF-8, throw 122.
    private static func percentDecoded(_ name: String) throws(ParseError) -> String {
        guard name.utf8.count <= maximumLength * 3 + prefixLength + 1 else { throw invalid }
        guard name.utf8.contains(UInt8(ascii: "%")) else { return name }
        var bytes: [UInt8] = []
        var iterator = name.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { throw invalid }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw invalid }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
