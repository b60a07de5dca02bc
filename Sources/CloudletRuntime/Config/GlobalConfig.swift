import Cloudlet

/// An app's global config, Parse's `_GlobalConfig`: parameters every client reads with
/// `GET /config` (Parse's `Parse.Config`), and the master key writes with `PUT /config`. A parameter
/// set `masterKeyOnly` is read with the master key only. Values are any Parse JSON: dates,
/// pointers, files and geo points as Parse encodes them.
public struct GlobalConfig: Sendable, Equatable {
    /// The most bytes the stored config (its parameters and their `masterKeyOnly` flags, as JSON)
    /// may take; an update past it answers 116 (413) and writes nothing.
    public static let maximumBytes = 128 * 1024

    /// The parameters by name.
    public var params: [String: ParseValue]
    /// For each parameter, whether only the master key reads it (Parse keeps `false` too).
    public var masterKeyOnly: [String: Bool]

    /// A config of `params`, with `masterKeyOnly` flags.
    public init(params: [String: ParseValue] = [:], masterKeyOnly: [String: Bool] = [:]) {
        self.params = params
        self.masterKeyOnly = masterKeyOnly
    }

    /// The config in its stored and answered form, `{"params": {…}, "masterKeyOnly": {…}}`.
    public init(json: ParseValue) {
        params = json["params"]?.objectValue ?? [:]
        masterKeyOnly = (json["masterKeyOnly"]?.objectValue ?? [:]).compactMapValues(\.boolValue)
    }

    /// `{"params": {…}, "masterKeyOnly": {…}}`, as `GET /config` answers it; `masterKeyOnly` is
    /// left out while no parameter has a flag (a config never written answers `{"params": {}}`).
    public var json: ParseValue {
        var members: [String: ParseValue] = ["params": .object(params)]
        if !masterKeyOnly.isEmpty { members["masterKeyOnly"] = .object(masterKeyOnly.mapValues(ParseValue.bool)) }
        return .object(members)
    }

    /// The config as a caller with or without the master key reads it: without it, the
    /// parameters flagged `masterKeyOnly` and their flags are left out, as Parse Server does.
    public func visible(toMaster isMaster: Bool) -> GlobalConfig {
        guard !isMaster else { return self }
        let hidden = masterKeyOnly.filter(\.value).keys
        var visible = self
        for name in hidden {
            visible.params[name] = nil
            visible.masterKeyOnly[name] = nil
        }
        return visible
    }

    /// The stored form as JSON text; throws 116 (413) past ``maximumBytes``.
    public func storedText() throws(ParseError) -> String {
        let text = JSONWriter.string(json)
        guard text.utf8.count <= Self.maximumBytes else {
            throw ParseError(code: 116, message: "the config would be larger than \(Self.maximumBytes) bytes", httpStatus: 413)
        }
        return text
    }
}
