import Cloudlet
import CloudletPostgres
import CloudletRuntime
import CloudletSQLite
import Foundation
import Synchronization
import Testing

/// What an app's LiveQuery feed told one subscriber, in order, as a LiveQuery server hears it:
/// its changes, and how many gaps.
final class LiveRecorder: Sendable {
    private let heard = Mutex<(changes: [CommittedObjectChange], gaps: Int)>(([], 0))

    /// How long a change may take to be heard: on PostgreSQL, through the database's notification.
    static let wait: Duration = .seconds(30)

    /// Subscribes to `feed` for as long as the recorder lives.
    init(_ feed: LiveObjectChanges) {
        feed.subscribe(self) { recorder, change in recorder.heard.withLock { $0.changes.append(change) } }
        feed.subscribeToGaps(self) { recorder in recorder.heard.withLock { $0.gaps += 1 } }
    }

    /// The gaps heard so far.
    var gaps: Int { heard.withLock { $0.gaps } }

    /// Every change heard, once one of `kind` of object `id` is (waiting up to ``wait`` for it):
    /// writes committed before that one were heard before it, so a write missing from the answer
    /// published nothing.
    func changes(through kind: CommittedObjectChange.Kind = .create, of id: String) async throws -> [CommittedObjectChange] {
        let deadline = ContinuousClock.now + Self.wait
        while true {
            let changes = heard.withLock { $0.changes }
            if changes.contains(where: { $0.kind == kind && $0.object.objectId == id }) { return changes }
            guard ContinuousClock.now < deadline else {
                Issue.record("no \(kind) of \(id) heard within \(Self.wait); heard \(changes.count) changes")
                return changes
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits up to ``wait`` for at least `count` gaps; answers whether they were heard.
    func gaps(atLeast count: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + Self.wait
        while gaps < count {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

extension TestApp {
    /// Every store of the app, as the server builds them (and, on PostgreSQL, listening).
    func stores() async throws -> AppStores {
        switch self {
        case .sqlite(let database): AppStores(database)
        case .postgres(let database, let schema): try await AppStores(database, schema: schema)
        }
    }
}

extension CommittedObjectChange: CustomTestStringConvertible {
    public var testDescription: String {
        "\(kind) \(object.className) \(object.objectId ?? "-") \(object.json)" + (original.map { " from \($0.json)" } ?? "")
    }
}
