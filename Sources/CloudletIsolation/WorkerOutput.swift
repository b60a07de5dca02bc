import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a worker's standard output or error on a thread of its own, with blocking reads of up to
/// ``chunkBytes`` into one buffer until end of file, and hands each chunk's lines on. A worker that
/// prints without end costs the host one system call per chunk and a scan for newlines, and the
/// lines its relay drops are never made into strings. (Foundation's `readabilityHandler` is not
/// used: on Linux its dispatch source can outlive the descriptor and crash libdispatch's event loop
/// when the server shuts down.)
enum OutputReader {
    /// The most bytes one read takes.
    static let chunkBytes = 64 << 10

    /// Starts reading `handle`: each chunk's complete lines go to `onLines`, then, at end of file,
    /// the last unfinished line, and `onEnd` once the handle is closed.
    static func start(
        _ handle: FileHandle, isError: Bool, onLines: @escaping @Sendable ([LineSplitter.Line]) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) {
        let reader = Thread {
            var lines = LineSplitter()
            var buffer = [UInt8](repeating: 0, count: chunkBytes)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let complete = lines.append(buffer[..<count])
                if !complete.isEmpty { onLines(complete) }
            }
            let last = lines.finish()
            if !last.isEmpty { onLines(last) }
            try? handle.close()
            onEnd()
        }
        reader.name = "cloudlet-worker-\(isError ? "stderr" : "stdout")"
        reader.start()
    }
}

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
