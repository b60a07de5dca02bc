/// Splits a byte stream into lines, each cut at ``maximumLineBytes`` (with a note that it was): a
/// worker that prints without end costs the host a bounded buffer and log line, not its memory.
struct LineSplitter {
    /// The longest line kept, in bytes.
    static let maximumLineBytes = 8 << 10
    /// What ends a line that was cut.
    static let cutMarker = " [… line cut at \(maximumLineBytes) bytes]"

    /// One line, without its newline; its text is made only when asked for.
    struct Line {
        let bytes: ArraySlice<UInt8>
        /// Whether the line went on past ``maximumLineBytes``.
        let wasCut: Bool

        /// The line as text, with ``cutMarker`` if it was cut.
        var text: String { String(decoding: bytes, as: UTF8.self) + (wasCut ? cutMarker : "") }

        /// Whether this is the Swift runtime's line about a trap.
        var isFatalError: Bool { bytes.firstRange(of: Self.fatalErrorMark) != nil }

        private static let fatalErrorMark = Array("Fatal error:".utf8)
    }

    private var pending: [UInt8] = []
    /// Whether the current line has been cut and the rest of it is being dropped.
    private var cutting = false

    /// The lines that `chunk` completes. Lines wholly inside it share its storage.
    mutating func append(_ chunk: ArraySlice<UInt8>) -> [Line] {
        var lines: [Line] = []
        var rest = chunk
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? rest.endIndex)]
            if !cutting {
                let room = Self.maximumLineBytes - pending.count
                if pending.isEmpty, newline != nil, piece.count <= room {
                    lines.append(Line(bytes: piece, wasCut: false))
                    rest = rest[rest.index(after: newline!)...]
                    continue
                }
                pending.append(contentsOf: piece.prefix(room))
                if piece.count > room {
                    lines.append(Line(bytes: pending[...], wasCut: true))
                    pending = []
                    cutting = true
                }
            }
            guard let newline else { break }
            if !cutting { lines.append(Line(bytes: pending[...], wasCut: false)) }
            pending = []
            cutting = false
            rest = rest[rest.index(after: newline)...]
        }
        return lines
    }

    /// The last line, if the stream ended without a newline.
    mutating func finish() -> [Line] {
        defer { pending = [] }
        return pending.isEmpty || cutting ? [] : [Line(bytes: pending[...], wasCut: false)]
    }
}
