import Foundation

/// After hooks owed a retry because their worker ended under them (or the pool could not take them):
/// each is due again after a delay that doubles with each failure, from `base` up to `maximum`.
/// Their outbox rows stay pending meanwhile, so a restart replays them too. Free of I/O.
struct AfterHookRetries: Sendable {
    private struct Entry {
        let event: OutboxEvent
        var failures: Int
        /// When it is due; nil while it runs.
        var due: Date?
    }

    let backoff: Backoff
    private var entries: [String: Entry] = [:]

    init(base: Duration = .seconds(1), maximum: Duration = .seconds(300)) {
        backoff = Backoff(first: base, maximum: maximum)
    }

    /// `event`'s hook did not run to its end at `now`; returns when it is due again.
    @discardableResult
    mutating func failed(_ event: OutboxEvent, at now: Date) -> Date {
        let failures = (entries[event.id]?.failures ?? 0) + 1
        let due = backoff.due(afterAttempt: failures, failedAt: now)
        entries[event.id] = Entry(event: event, failures: failures, due: due)
        return due
    }

    /// `id`'s hook ran to its end: no more retries.
    mutating func succeeded(_ id: String) {
        entries.removeValue(forKey: id)
    }

    /// The events due at `now`, oldest due first, marked as running.
    mutating func takeDue(at now: Date) -> [OutboxEvent] {
        let due = entries.values.filter { $0.due.map { $0 <= now } ?? false }.sorted { $0.due! < $1.due! }
        for entry in due { entries[entry.event.id]?.due = nil }
        return due.map(\.event)
    }

    /// When the earliest retry is due, if one is (not running).
    var nextDue: Date? { entries.values.compactMap(\.due).min() }

    /// How many events are owed a retry.
    var count: Int { entries.count }
}
