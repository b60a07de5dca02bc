import Cloudlet
import CloudletRuntime

/// An app's file options: the largest upload it takes, the most its files may take together, and
/// whether an upload needs a session.
public struct FileSettings: Sendable, Hashable {
    /// The largest upload by default: 20 MiB, as Parse Server's `maxUploadSize`.
    public static let defaultMaximumUploadBytes = UploadLimits.defaultMaximumBytes
    /// The largest an app's upload limit may be set to: 4 GiB.
    public static let largestMaximumUploadBytes = 4 << 30

    /// The largest file one upload may store; past it, 413 with code 130.
    public var maximumUploadBytes: Int
    /// Whether uploads need a session (or the master key); without one, 403 with code 119.
    public var requireSession: Bool
    /// The most bytes the app's stored files may take together; an upload that would pass it
    /// answers 413 with code 130. Nil (the default) for no bound but the host's free-disk floor.
    public var maximumTotalBytes: Int64?

    public init(
        maximumUploadBytes: Int = FileSettings.defaultMaximumUploadBytes, requireSession: Bool = false, maximumTotalBytes: Int64? = nil
    ) {
        self.maximumUploadBytes = maximumUploadBytes
        self.requireSession = requireSession
        self.maximumTotalBytes = maximumTotalBytes
    }

    /// The settings in `json` (`{"maxUploadBytes": n, "requireSession": bool, "maxTotalBytes": n}`,
    /// each optional; `"maxTotalBytes": null` removes the bound) on top of these. Throws 142 naming
    /// the member for a value out of bounds.
    public func applying(_ json: ParseValue) throws -> FileSettings {
        guard let members = json.objectValue else { throw AppSettings.invalid("files must be an object") }
        var settings = self
        for key in members.keys where !["maxUploadBytes", "requireSession", "maxTotalBytes"].contains(key) {
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
        switch members["maxTotalBytes"] {
        case nil:
            break
        case .null?:
            settings.maximumTotalBytes = nil
        case let total?:
            guard let bytes = total.intValue, bytes >= 0, Double(bytes) <= Self.largestExactJSONInteger else {
                throw AppSettings.invalid("files.maxTotalBytes must be a whole number of bytes from 0, or null for no bound")
            }
            settings.maximumTotalBytes = Int64(bytes)
        }
        return settings
    }

    /// The largest integer a JSON number holds exactly (2^53).
    private static let largestExactJSONInteger = 9_007_199_254_740_992.0

    /// The settings as JSON, in the members ``applying(_:)`` reads.
    public var json: ParseValue {
        var members: [String: ParseValue] = ["maxUploadBytes": .number(Double(maximumUploadBytes)), "requireSession": .bool(requireSession)]
        members["maxTotalBytes"] = maximumTotalBytes.map { .number(Double($0)) }
        return .object(members)
    }
}
