import Cloudlet
import Foundation

/// One run of a hook as an app's hook log keeps it: which hook, for which request, when, how long,
/// how it ended, and the lines the hook logged (at most ``HookRunCapture/maximumLines`` lines and
/// ``HookRunCapture/maximumBytes`` bytes of messages).
public struct HookRun: Sendable, Hashable {
    /// One line the hook logged.
    public struct Line: Sendable, Hashable {
        /// When it was logged.
        public var time: Date
        /// Its level, such as `info`.
        public var level: String
        /// The message.
        public var message: String
        /// The metadata the hook logged with it.
        public var metadata: [String: String]

        public init(time: Date, level: String, message: String, metadata: [String: String] = [:]) {
            self.time = time
            self.level = level
            self.message = message
            self.metadata = metadata
        }

        /// The line as JSON: `time`, `level`, `message`, `metadata`.
        public var json: ParseValue {
            [
                "time": .string(ParseDate.string(from: time)), "level": .string(level), "message": .string(message),
                "metadata": .object(metadata.mapValues(ParseValue.string)),
            ]
        }

        /// The line `json` holds, as ``json`` writes it.
        package init(json: ParseValue) {
            time = json["time"]?.stringValue.flatMap(ParseDate.date(from:)) ?? Date(timeIntervalSince1970: 0)
            level = json["level"]?.stringValue ?? ""
            message = json["message"]?.stringValue ?? ""
            metadata = json["metadata"]?.objectValue?.compactMapValues(\.stringValue) ?? [:]
        }
    }

    /// Its place in the app's hook log, increasing; 0 until it is stored.
    public var sequence: Int64
    /// The hook as `kind:name`, such as `beforeSave:Messages` or `function:hello`.
    public var hook: String
    /// The request the hook ran for.
    public var requestId: String
    /// When it started.
    public var startedAt: Date
    /// How long it ran.
    public var duration: Duration
    /// How it ended.
    public var outcome: HookOutcome
    /// The error it ended with, if any.
    public var error: String?
    /// The lines it logged, oldest first.
    public var lines: [Line]
    /// Lines it logged past the cap, left out.
    public var droppedLines: Int

    public init(
        sequence: Int64 = 0, hook: String, requestId: String, startedAt: Date, duration: Duration, outcome: HookOutcome,
        error: String? = nil, lines: [Line] = [], droppedLines: Int = 0
    ) {
        self.sequence = sequence
        self.hook = hook
        self.requestId = requestId
        self.startedAt = startedAt
        self.duration = duration
        self.outcome = outcome
        self.error = error
        self.lines = lines
        self.droppedLines = droppedLines
    }

    /// How long it ran, in milliseconds, to the microsecond.
    public var durationMilliseconds: Double { (duration.milliseconds * 1000).rounded() / 1000 }

    /// The run as JSON, as `cloudlet logs --json` and the admin API show it.
    public var json: ParseValue {
        var members: [String: ParseValue] = [
            "sequence": .number(Double(sequence)), "hook": .string(hook), "requestId": .string(requestId),
            "startedAt": .string(ParseDate.string(from: startedAt)), "durationMs": .number(durationMilliseconds),
            "outcome": .string(outcome.rawValue),
            "lines": .array(lines.map(\.json)),
        ]
        if let error { members["error"] = .string(error) }
        if droppedLines > 0 { members["droppedLines"] = .number(Double(droppedLines)) }
        return .object(members)
    }
}

/// Which runs to read from a hook log: optionally one hook's, those started since a time, those
/// after a sequence number; the newest `limit` of them, oldest first.
public struct HookRunQuery: Sendable, Hashable {
    /// Only this hook's runs (`kind:name`).
    public var hook: String?
    /// Only runs started at or after this time.
    public var since: Date?
    /// Only runs stored after this sequence number (for following a log).
    public var after: Int64?
    /// At most this many, the newest.
    public var limit: Int

    public init(hook: String? = nil, since: Date? = nil, after: Int64? = nil, limit: Int = 100) {
        self.hook = hook
        self.since = since
        self.after = after
        self.limit = limit
    }

    /// The time `text` names, relative to `now`: a duration back such as `90s`, `10m`, `2h` or `7d`,
    /// or a date in Parse's format (`2025-01-31T12:00:00.000Z`). Nil if it is neither.
    public static func time(_ text: String, before now: Date) -> Date? {
        if let date = ParseDate.date(from: text) { return date }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0 else { return nil }
        return now.addingTimeInterval(-amount * unit)
    }
}

extension Duration {
    /// The duration in milliseconds.
    package var milliseconds: Double { seconds * 1000 }
}
