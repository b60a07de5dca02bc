import Cloudlet
import Synchronization

/// Log lines kept in memory, for tests to read what hooks logged.
public final class CapturedLogs: Sendable {
    /// One captured line.
    public struct Entry: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    /// Every line so far, oldest first.
    public var all: [Entry] { entries.withLock { $0 } }

    /// The messages logged by the hook of `kind` for `name`.
    public func messages(from kind: HookKind, _ name: String) -> [String] {
        all.filter { $0.metadata["hook"] == "\(kind.rawValue) \(name)" }.map(\.message)
    }

    /// A logger whose lines land here.
    public func logger(label: String) -> Logger {
        Logger(label: label) { _ in Handler(logs: self) }
    }

    fileprivate func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            logs.append(Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
