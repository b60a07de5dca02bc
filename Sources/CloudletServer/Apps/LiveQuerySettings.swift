import Cloudlet
import CloudletRuntime
import Foundation

/// An app's LiveQuery options, in the shape of Parse Server's `liveQuery` option: the classes whose
/// committed writes (creates, updates, deletes) are published to the app's LiveQuery feed
/// (``AppStores/liveChanges``). None by default: no write publishes anything.
public struct LiveQuerySettings: Sendable, Hashable {
    /// The most classes one app may publish.
    public static let maximumClassNames = 100

    /// The classes whose writes are published, in the order given, each once: an app's class
    /// names, or Parse's `_User`, `_Installation`, `_Role`, `_PushStatus` and `_JobStatus`.
    public var classNames: [String]

    public init(classNames: [String] = []) {
        self.classNames = classNames
    }

    /// The settings in `json` (`{"classNames": ["Message", …]}`, the member optional) on top of
    /// these. Throws 142 naming the member for a value that is not a list of class names.
    public func applying(_ json: ParseValue) throws -> LiveQuerySettings {
        guard let members = json.objectValue else { throw AppSettings.invalid("liveQuery must be an object: {\"classNames\": […]}") }
        if let unknown = members.keys.sorted().first(where: { $0 != "classNames" }) {
            throw AppSettings.invalid("liveQuery.\(unknown) is not a LiveQuery setting")
        }
        var settings = self
        if let names = members["classNames"] { settings.classNames = try Self.classNames(names) }
        return settings
    }

    /// The settings as JSON, in the members ``applying(_:)`` reads.
    public var json: ParseValue {
        ["classNames": .array(classNames.map(ParseValue.string))]
    }

    /// The class names `value` lists, as a JSON array of strings or (on a command line) one
    /// comma-separated string, empty for none; each once, in order. Throws 142 for more than
    /// ``maximumClassNames`` names or one that names no class whose writes are stored as objects
    /// (`_Session` is kept apart, and is not published).
    static func classNames(_ value: ParseValue) throws -> [String] {
        let given: [String?]?
        if let text = value.stringValue {
            given = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            given = value.arrayValue?.map(\.stringValue)
        }
        guard let given, given.count <= maximumClassNames else {
            throw AppSettings.invalid("liveQuery.classNames must be a list of at most \(maximumClassNames) class names")
        }
        var names: [String] = []
        for name in given {
            guard let name, (try? ParseNames.validateClassName(name)) != nil else {
                throw AppSettings.invalid("liveQuery.classNames: \(name.map { "\"\($0)\"" } ?? "a value that is not a string") is not a class name LiveQuery can publish")
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}
