import Cloudlet
import CloudletServer
import Foundation
import Synchronization
import Testing

/// Writes made for a hook do not commit once its deadline has passed: checked as they start, and
/// again inside the transaction, right before it commits.
@Suite struct WriteDeadlineTests {
    /// A clock that moves one second on each reading.
    private final class TickingClock: CloudletClock {
        private let readings = Mutex(0)
        let start = Date(timeIntervalSince1970: 1_700_000_000)

        var now: Date {
            let seconds = readings.withLock { readings in
                defer { readings += 1 }
                return readings
            }
            return start.addingTimeInterval(Double(seconds))
        }

        func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm { Never.alarm }

        private enum Never: ClockAlarm {
            case alarm
            func cancel() {}
        }
    }

    private func object(_ id: String) -> ParseObject {
        var object = ParseObject(className: "Late", fields: ["n": 1])
        object.objectId = id
        object.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        object.updatedAt = object.createdAt
        return object
    }

    private func withStorage(_ body: (SQLiteObjectStore) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-deadline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(SQLiteObjectStore(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path)))
    }

    @Test func aWriteWhoseDeadlinePassesWhileItRunsRollsBack() async throws {
        try await withStorage { storage in
            let clock = TickingClock()
            // The check before the transaction reads the clock at +0 s, the one before its commit at +1 s.
            let fence = WriteDeadline(deadline: clock.start.addingTimeInterval(0.5), clock: clock)
            let error = await #expect(throws: ParseError.self) {
                try await WriteDeadline.$current.withValue(fence) { try await storage.insert(object("late1"), outbox: nil) }
            }
            #expect(error?.code == 124)
            let stored = try await storage.fetch("Late", id: "late1")
            #expect(stored == nil)
        }
    }

    @Test func aWriteWithinItsDeadlineCommits() async throws {
        try await withStorage { storage in
            let clock = TickingClock()
            let fence = WriteDeadline(deadline: clock.start.addingTimeInterval(10), clock: clock)
            try await WriteDeadline.$current.withValue(fence) { try await storage.insert(object("early1"), outbox: nil) }
            let stored = try await storage.fetch("Late", id: "early1")
            #expect(stored != nil)
        }
    }
}
