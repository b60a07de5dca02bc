import Cloudlet
import Foundation
import Logging

/// How log lines are written: `logfmt` (`key=value` pairs) or one JSON object per line.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `time=… level=info label=cloudlet msg="…" request_id=…`
    case logfmt
    /// `{"time":"…","level":"info","label":"cloudlet","msg":"…","request_id":"…"}`
    case json
}

/// A `LogHandler` that writes one line per entry: time (UTC, milliseconds), level, the logger's
/// label, the message, then all metadata — the logger's, the metadata provider's and the entry's,
/// in that order of precedence from last to first, keys sorted. Hummingbird's `hb.request.id` is
/// written as `request_id`, the key Cloudlet's own lines use, so that every line of a request
/// carries its id under one name.
///
/// ```swift
/// StructuredLogHandler.bootstrap(format: .json, level: .info)
/// ```
public struct StructuredLogHandler: LogHandler {
    /// Where finished lines go: standard error by default.
    public typealias Output = @Sendable (String) -> Void

    private let label: String
    private let format: LogFormat
    private let output: Output
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// A handler for the logger `label`, writing `format` lines to `output` (standard error by default).
    public init(
        label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil,
        output: @escaping Output = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
        self.output = output
    }

    /// Makes every logger of the process write `format` lines at `level` and above to standard
    /// error, each line of a request carrying its id (``RequestIdentity``), as `cloudlet serve` logs.
    public static func bootstrap(format: LogFormat, level: Logger.Level) {
        LoggingSystem.bootstrap(
            { label, provider in
                var handler = StructuredLogHandler(label: label, format: format, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: RequestIdentity.metadataProvider)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        if let requestId = merged.removeValue(forKey: "hb.request.id"), merged["request_id"] == nil { merged["request_id"] = requestId }
        var fields: [(String, String)] = [
            ("time", ParseDate.string(from: Date())), ("level", event.level.rawValue), ("label", label), ("msg", "\(event.message)"),
        ]
        fields += merged.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        output(Self.line(fields, format))
    }

    /// `fields` as one line of `format`, ending in a newline.
    package static func line(_ fields: [(String, String)], _ format: LogFormat) -> String {
        switch format {
        case .json:
            let members = fields.map { "\(JSONWriter.quoted($0.0)):\(JSONWriter.quoted($0.1))" }
            return "{" + members.joined(separator: ",") + "}\n"
        case .logfmt:
            var line: [UInt8] = []
            line.reserveCapacity(fields.reduce(1) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
            for (key, value) in fields {
                if !line.isEmpty { line.append(UInt8(ascii: " ")) }
                appendLogfmtKey(key, to: &line)
                line.append(UInt8(ascii: "="))
                appendLogfmtValue(value, to: &line)
            }
            line.append(UInt8(ascii: "\n"))
            return String(decoding: line, as: UTF8.self)
        }
    }

    /// Appends a logfmt value: bare when it is a plain word, else quoted, with `"` and `\` escaped
    /// and every control character written as an escape (`\n`, `\r`, `\t`, else `\u001b`,
    /// `\u2028`, …), so that no value can end its line or forge another. It goes scalar by scalar:
    /// `"\r\n"` is one `Character`.
    private static func appendLogfmtValue(_ value: String, to line: inout [UInt8]) {
        if !value.isEmpty, value.unicodeScalars.allSatisfy(isPlain) { return line.append(contentsOf: value.utf8) }
        line.append(UInt8(ascii: "\""))
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": line += #"\""#.utf8
            case "\\": line += #"\\"#.utf8
            case "\n": line += #"\n"#.utf8
            case "\r": line += #"\r"#.utf8
            case "\t": line += #"\t"#.utf8
            case _ where isControl(scalar): line += unicodeEscape(scalar).utf8
            default: line += UTF8.encode(scalar)!
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    /// Appends a logfmt key, which cannot be quoted: a space, `=`, `"`, `\` or control character in
    /// it (a hook names its own metadata keys) is written as its `\u` escape.
    private static func appendLogfmtKey(_ key: String, to line: inout [UInt8]) {
        if key.unicodeScalars.allSatisfy(isPlain) { return line.append(contentsOf: key.utf8) }
        for scalar in key.unicodeScalars {
            if isPlain(scalar) { line += UTF8.encode(scalar)! } else { line += unicodeEscape(scalar).utf8 }
        }
    }

    /// Whether `scalar` may stand in a bare logfmt word.
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case " ", "=", "\"", "\\": false
        default: !isControl(scalar)
        }
    }

    /// Whether `scalar` is a control character: a C0 or C1 control or DEL, a format character
    /// (such as a bidirectional override), or a line or paragraph separator. ASCII's are C0 and DEL
    /// alone, told without the Unicode property lookup (most of a line is ASCII).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// `\u` and four hex digits, or `\U` and eight past the Basic Multilingual Plane.
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16)
        let width = scalar.value > 0xFFFF ? 8 : 4
        return (width == 8 ? "\\U" : "\\u") + String(repeating: "0", count: width - digits.count) + digits
    }
}
