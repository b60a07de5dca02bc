/// Writes a ``ParseValue`` as compact JSON text. Keys are written in sorted order so that the same
/// value always gives the same bytes; whole numbers are written without a fraction.
public enum JSONWriter {
    /// The JSON bytes of `value`.
    public static func bytes(_ value: ParseValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    /// The JSON bytes of `value`, or nil if they are more than `limit`: writing stops as soon as
    /// the output passes the limit, so a value that would encode to far more costs no more than that.
    public static func bytes(_ value: ParseValue, limit: Int) -> [UInt8]? {
        var output = LimitedBytes(limit: limit)
        output.bytes.reserveCapacity(min(limit, 256))
        encode(value, into: &output)
        return output.isFull ? nil : output.bytes
    }

    /// How many bytes the JSON of `value` takes, without writing it.
    public static func byteCount(_ value: ParseValue) -> Int {
        var counter = ByteCounter()
        encode(value, into: &counter)
        return counter.count
    }

    /// The JSON text of `value`.
    public static func string(_ value: ParseValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// `text` as a JSON string, the same as `string(.string(text))`. Text with nothing to escape
    /// (ids, dates, names) is copied between its quotes into the string at once.
    public static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.contains(where: needsEscape) else {
                var output: [UInt8] = []
                writeString(bytes: bytes, into: &output)
                return String(decoding: output, as: UTF8.self)
            }
            return String(unsafeUninitializedCapacity: bytes.count + 2) { buffer in
                buffer[0] = UInt8(ascii: "\"")
                _ = UnsafeMutableBufferPointer(rebasing: buffer[1...]).initialize(fromContentsOf: bytes)
                buffer[bytes.count + 1] = UInt8(ascii: "\"")
                return bytes.count + 2
            }
        }
    }

    /// Appends the JSON of `value` to `output`.
    public static func write(_ value: ParseValue, into output: inout [UInt8]) {
        encode(value, into: &output)
    }

    private static func encode(_ value: ParseValue, into output: inout some JSONOutput) {
        switch value {
        case .null: output.appendBytes("null".utf8)
        case .bool(let flag): output.appendBytes((flag ? "true" : "false").utf8)
        case .number(let number): writeNumber(number, into: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.appendByte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.appendByte(UInt8(ascii: ",")) }
                encode(element, into: &output)
                if output.isFull { return }
            }
            output.appendByte(UInt8(ascii: "]"))
        case .object(let members):
            output.appendByte(UInt8(ascii: "{"))
            // Sorted as pairs: sorting the keys alone costs a lookup of each key's value.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.appendByte(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.appendByte(UInt8(ascii: ":"))
                encode(member.value, into: &output)
                if output.isFull { return }
            }
            output.appendByte(UInt8(ascii: "}"))
        }
    }

    private static func writeNumber(_ number: Double, into output: inout some JSONOutput) {
        if number.rounded() == number, abs(number) < 9.0e15 {
            output.appendBytes(String(Int64(number)).utf8)
        } else if number.isFinite {
            output.appendBytes("\(number)".utf8)
        } else {
            output.appendBytes("null".utf8)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into output: inout some JSONOutput) {
        guard output.makeRoom(for: text.utf8.count + 2) else { return }
        var text = text
        text.withUTF8 { writeString(bytes: $0, into: &output) }
    }

    /// Writes the UTF-8 `bytes` as a JSON string; runs of bytes that need no escape are copied whole.
    private static func writeString(bytes: UnsafeBufferPointer<UInt8>, into output: inout some JSONOutput) {
        output.appendByte(UInt8(ascii: "\""))
        var start = 0
        for index in bytes.indices where needsEscape(bytes[index]) {
            output.appendBytes(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            writeEscape(of: bytes[index], into: &output)
            start = index + 1
        }
        output.appendBytes(UnsafeBufferPointer(rebasing: bytes[start...]))
        output.appendByte(UInt8(ascii: "\""))
    }

    /// Whether `byte` is written escaped in a JSON string: a quote, a backslash or a control character.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The escape of `byte`, a quote, a backslash or a control character.
    private static func writeEscape(of byte: UInt8, into output: inout some JSONOutput) {
        switch byte {
        case UInt8(ascii: "\""): output.appendBytes([UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): output.appendBytes([UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: output.appendBytes([UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: output.appendBytes([UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: output.appendBytes([UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            output.appendBytes([UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.appendByte(hexDigits[Int(byte >> 4)])
            output.appendByte(hexDigits[Int(byte & 0xF)])
        }
    }
}

/// Where ``JSONWriter`` writes: bytes, bytes up to a limit, or only their count.
private protocol JSONOutput {
    mutating func appendByte(_ byte: UInt8)
    mutating func appendBytes(_ bytes: some Collection<UInt8>)
    /// Whether the output has passed its limit: the writer stops after the element or member it is in.
    var isFull: Bool { get }
    /// Whether `count` more bytes fit; if not, the output is full at once (a long string is not written).
    mutating func makeRoom(for count: Int) -> Bool
}

extension JSONOutput {
    mutating func makeRoom(for count: Int) -> Bool { true }
}

extension [UInt8]: JSONOutput {
    mutating func appendByte(_ byte: UInt8) { append(byte) }
    mutating func appendBytes(_ bytes: some Collection<UInt8>) { append(contentsOf: bytes) }
    var isFull: Bool { false }
}

private struct LimitedBytes: JSONOutput {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false

    mutating func appendByte(_ byte: UInt8) { bytes.append(byte) }
    mutating func appendBytes(_ more: some Collection<UInt8>) { bytes.append(contentsOf: more) }
    var isFull: Bool { overflowed || bytes.count > limit }

    mutating func makeRoom(for count: Int) -> Bool {
        overflowed = overflowed || count > limit - bytes.count
        return !overflowed
    }
}

private struct ByteCounter: JSONOutput {
    var count = 0

    mutating func appendByte(_ byte: UInt8) { count += 1 }
    mutating func appendBytes(_ bytes: some Collection<UInt8>) { count += bytes.count }
    var isFull: Bool { false }
}
