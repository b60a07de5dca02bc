/// Reads JSON text into a ``ParseValue`` in one pass, with a bound on nesting depth so that hostile
/// input (`[[[[…`) gives an error instead of exhausting the stack.
public struct JSONParser {
    /// Why a text is not acceptable JSON, and the byte offset where that was found.
    public struct Failure: Error, Sendable, Equatable {
        /// What is wrong, in words a client can read.
        public let reason: String
        /// Byte offset into the input.
        public let offset: Int
    }

    /// The deepest nesting of arrays and objects accepted by default.
    public static let defaultMaximumDepth = 64

    /// Parses `bytes` as one JSON value (surrounding whitespace allowed). Throws ``Failure``.
    public static func parse<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, maximumDepth: Int = defaultMaximumDepth
    ) throws -> ParseValue {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in
            try parse(buffer: UnsafeRawBufferPointer(buffer), maximumDepth: maximumDepth)
        }) {
            return result
        }
        return try Array(bytes).withUnsafeBytes { buffer in try parse(buffer: buffer, maximumDepth: maximumDepth) }
    }

    /// Parses the UTF-8 of `text` as one JSON value. Throws ``Failure``.
    public static func parse(_ text: String, maximumDepth: Int = defaultMaximumDepth) throws -> ParseValue {
        try parse(Array(text.utf8), maximumDepth: maximumDepth)
    }

    private static func parse(buffer: UnsafeRawBufferPointer, maximumDepth: Int) throws(Failure) -> ParseValue {
        try reading(buffer, maximumDepth: maximumDepth) { parser throws(Failure) in try parser.readValue(depth: 0) }
    }

    /// What `read` makes of the one JSON value of `buffer` (surrounding whitespace allowed), read by
    /// a parser at its start.
    static func reading<Result>(
        _ buffer: UnsafeRawBufferPointer, maximumDepth: Int, _ read: (inout JSONParser) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var parser = JSONParser(bytes: buffer, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        let result = try read(&parser)
        parser.skipWhitespace()
        guard parser.position == buffer.count else { throw parser.failure("unexpected text after the JSON value") }
        return result
    }

    let bytes: UnsafeRawBufferPointer
    private let maximumDepth: Int
    private(set) var position = 0

    private init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func failure(_ reason: String) -> Failure {
        Failure(reason: reason, offset: position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(Failure) -> ParseValue {
        guard position < bytes.count else { throw failure("unexpected end of JSON") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try readLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func readLiteral(_ literal: StaticString) throws(Failure) {
        let length = literal.utf8CodeUnitCount
        guard position + length <= bytes.count else { throw failure("unexpected end of JSON") }
        for index in 0..<length where bytes[position + index] != literal.utf8Start[index] {
            throw failure("unexpected character")
        }
        position += length
    }

    private mutating func readObject(depth: Int) throws(Failure) -> ParseValue {
        // Gathered first and hashed once into a table of the right size (inserted one by one, the
        // table grows, and hashes every key again, as many times as it doubles). A repeated key
        // keeps its last value.
        var members: [(String, ParseValue)] = []
        members.reserveCapacity(8)
        try readMembers(depth: depth) { key, parser throws(Failure) in members.append((key, try parser.readValue(depth: depth))) }
        return .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
    }

    private mutating func readArray(depth: Int) throws(Failure) -> ParseValue {
        var elements: [ParseValue] = []
        try readElements(depth: depth) { _, parser throws(Failure) in elements.append(try parser.readValue(depth: depth)) }
        return .array(elements)
    }

    /// Reads the object at `position` (nested `depth` deep), calling `member` with each key in the
    /// order of the text and the parser at its value, which `member` must read.
    mutating func readMembers(depth: Int, _ member: (String, inout JSONParser) throws(Failure) -> Void) throws(Failure) {
        guard depth <= maximumDepth else { throw failure("JSON nested deeper than \(maximumDepth) levels") }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw failure("expected a quoted key")
            }
            let key = try readString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            skipWhitespace()
            try member(key, &self)
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of JSON") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    /// Reads the array at `position` (nested `depth` deep), calling `element` with each index and
    /// the parser at its value, which `element` must read.
    mutating func readElements(depth: Int, _ element: (Int, inout JSONParser) throws(Failure) -> Void) throws(Failure) {
        guard depth <= maximumDepth else { throw failure("JSON nested deeper than \(maximumDepth) levels") }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        var index = 0
        while true {
            skipWhitespace()
            try element(index, &self)
            index += 1
            skipWhitespace()
            guard position < bytes.count else { throw failure("unexpected end of JSON") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func readNumber() throws(Failure) -> Double {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        guard position > digitsStart else { throw failure("invalid number") }
        if bytes[digitsStart] == UInt8(ascii: "0"), position - digitsStart > 1 { throw failure("invalid number") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > fractionStart else { throw failure("invalid number") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            let exponentStart = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > exponentStart else { throw failure("invalid number") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw failure("invalid number") }
        return value
    }

    private mutating func readString() throws(Failure) -> String {
        position += 1
        let start = position
        // Fast path: no escapes. Bytes all ASCII (the high bits of none set) need no UTF-8 check.
        var highBits: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                let text = highBits < 0x80 ? String(decoding: raw, as: UTF8.self) : try validUTF8(raw)
                position += 1
                return text
            }
            highBits |= byte
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("control character in string") }
            position += 1
        }
        var scalars = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try validUTF8(scalars)
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw failure("unexpected end of JSON") }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try readUnicodeEscape())
                default: throw failure("invalid escape in string")
                }
            default:
                if byte < 0x20 { throw failure("control character in string") }
                scalars.append(byte)
                position += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func readUnicodeEscape() throws(Failure) -> [UInt8] {
        var code = try readHex4()
        if (0xD800...0xDBFF).contains(code) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
            else { throw failure("unpaired surrogate in string") }
            position += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate in string") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
            throw failure("unpaired surrogate in string")
        }
        guard let scalar = Unicode.Scalar(code) else { throw failure("invalid unicode escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("unexpected end of JSON") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid unicode escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// `raw` as a String, or a failure if it is not UTF-8.
    private func validUTF8<Bytes: Sequence<UInt8>>(_ raw: Bytes) throws(Failure) -> String {
        guard let text = String(validating: raw, as: UTF8.self) else { throw failure("invalid UTF-8") }
        return text
    }
}
