import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `serve --config cloudlet.json`: the server's settings (one member per setting of ``ServeSettings``,
/// named as its flag in camelCase) and an `apps` array of apps to make sure exist in the registry at start.
/// A member the file does not know is an error naming it.
///
/// ```json
/// {"port": 1337, "data": "./data", "rateLimit": "40/s,burst=80",
///  "apps": [{"id": "shop", "hooks": "./shop-hooks", "workers": 2, "maxHookTimeLimitMs": 5000}]}
/// ```
struct ServeConfigFile {
    /// The server members the file may have.
    static let serverMembers = Set(ServeSettings.table.entries.map(\.member))

    /// One entry of `apps`.
    struct App {
        var id: String
        /// The settings members (as ``AppSettings/applying(_:)`` reads them).
        var settings: [String: ParseValue]
        var clientKey: String?
        var masterKey: String?
    }

    let members: [String: ParseValue]
    let apps: [App]

    /// Reads the file at `path`; relative `hooks` paths are taken from the file's folder.
    init(path: String) throws {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ValidationError("cannot read the config file \(path)")
        }
        try self.init(json: data, folder: url.deletingLastPathComponent())
    }

    /// Reads `data`, whose members may be those of `known` and `apps`.
    init(json data: Data, folder: URL, members known: Set<String> = serverMembers) throws {
        let parsed: ParseValue
        do {
            parsed = try JSONParser.parse(data)
        } catch let failure as JSONParser.Failure {
            throw ValidationError("the config file is not valid JSON: \(failure.reason) at byte \(failure.offset)")
        }
        guard let members = parsed.objectValue else { throw ValidationError("the config file must be a JSON object") }
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) && $0 != "apps" }) {
            throw ValidationError("the config file has an unknown member: \(unknown)")
        }
        self.members = members
        apps = try (members["apps"]?.arrayValue ?? []).enumerated().map { index, entry in
            try Self.app(entry, at: index, folder: folder)
        }
        if members["apps"] != nil, members["apps"]?.arrayValue == nil { throw ValidationError("the config file member apps must be an array") }
    }

    /// A member as the text its flag takes (arrays joined with commas), or nil.
    func text(of member: String) -> String? {
        switch members[member] {
        case .string(let text): text
        case .bool(let flag): String(flag)
        case .number(let number): number.rounded() == number ? String(Int(number)) : String(number)
        case .array(let items): items.compactMap(\.stringValue).joined(separator: ",")
        default: nil
        }
    }

    private static func app(_ entry: ParseValue, at index: Int, folder: URL) throws -> App {
        guard var members = entry.objectValue else { throw ValidationError("apps[\(index)] must be an object") }
        let known = AppSettings.memberNames.union(["id", "clientKey", "masterKey"])
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw ValidationError("apps[\(index)] has an unknown member: \(unknown)")
        }
        guard let id = members.removeValue(forKey: "id")?.stringValue else { throw ValidationError("apps[\(index)] needs an id") }
        let clientKey = members.removeValue(forKey: "clientKey")?.stringValue
        let masterKey = members.removeValue(forKey: "masterKey")?.stringValue
        if let hooks = members["hooks"]?.stringValue, hooks != AppSettings.selfExecutable, !hooks.hasPrefix("/") {
            members["hooks"] = .string(folder.appendingPathComponent(hooks).standardizedFileURL.path)
        }
        return App(id: id, settings: members, clientKey: clientKey, masterKey: masterKey)
    }
}
