import Cloudlet

/// An app's file options: the largest upload it takes, and whether an upload needs a session.
public struct FileSettings: Sendable, Hashable {
    /// The largest upload by default: 20 MiB, as Parse Server's `maxUploadSize`.
    public static let defaultMaximumUploadBytes = 20 << 20
    /// The largest an app's upload limit may be set to: 4 GiB.
    public static let largestMaximumUploadBytes = 4 << 30

    /// The largest file one upload may store; past it, 413 with code 130.
    public var maximumUploadBytes: Int
    /// Whether uploads need a session (or the master key); without one, 403 with code 119.
    public var requireSession: Bool

    public init(maximumUploadBytes: Int = FileSettings.defaultMaximumUploadBytes, requireSession: Bool = false) {
        self.maximumUploadBytes = maximumUploadBytes
        self.requireSession = requireSession
    }

    /// The settings in `json` (`{"maxUploadBytes": n, "requireSession": bool}`, each optional) on
    /// top of these. Throws 142 naming the member for a value out of bounds.
    public func applying(_ json: ParseValue) throws -> FileSettings {
        guard let members = json.objectValue else { throw AppSettings.invalid("files must be an object") }
        var settings = self
        for key in members.keys where !["maxUploadBytes", "requireSession"].contains(key) {
            throw AppSettings.invalid("files.\(key) is not a file setting")
        }
        if let limit = members["maxUploadBytes"] {
            guard let bytes = limit.intValue, (1...Self.largestMaximumUploadBytes).contains(bytes) else {
                throw AppSettings.invalid("files.maxUploadBytes must be an integer from 1 to \(Self.largestMaximumUploadBytes)")
            }
            settings.maximumUploadBytes = bytes
        }
        if let flag = members["requireSession"] {
            guard let required = flag.boolValue else { throw AppSettings.invalid("files.requireSession must be true or false") }
            settings.requireSession = required
        }
        return settings
    }

    /// The settings as JSON, in the members ``applying(_:)`` reads.
    public var json: ParseValue {
        ["maxUploadBytes": .number(Double(maximumUploadBytes)), "requireSession": .bool(requireSession)]
    }
}
