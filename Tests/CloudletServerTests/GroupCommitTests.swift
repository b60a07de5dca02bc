import Cloudlet
import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// Group commit: the saves queued behind the app's writer share one transaction, each in a
/// savepoint of its own, and are answered once it has committed.
@Suite struct GroupCommitTests {
    /// A clock that reads `start` for its first `freshReadings` readings and an hour later after them.
    private final class ExpiringClock: CloudletClock {
        private let readings = Mutex(0)
        private let freshReadings: Int
        let start = Date(timeIntervalSince1970: 1_700_000_000)

        init(freshReadings: Int) {
            self.freshReadings = freshReadings
        }

        var now: Date {
            let reading = readings.withLock { readings in
                defer { readings += 1 }
                return readings
            }
            return reading < freshReadings ? start : start.addingTimeInterval(3600)
        }

        func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm { NoAlarm() }

        private struct NoAlarm: ClockAlarm {
            func cancel() {}
        }
    }

    /// What a save of the test is made to meet in its group.
    private enum Fate {
        /// Stored, with its after hook's row.
        case stored
        /// A user whose username another save of the group (`sameUsername`) takes too: one answers 202.
        case user, sameUsername
        /// A `String` where the class holds numbers: 111.
        case wrongType
        /// Its deadline passes after it ran, before the group commits: 124.
        case lateForTheCommit

        /// The fate of the save at `index`: in each eight, a user and the one four later share a username.
        init(_ index: Int) {
            switch index % 8 {
            case 0: self = .user
            case 4: self = .sameUsername
            case 2: self = .wrongType
            case 6: self = .lateForTheCommit
            default: self = .stored
            }
        }
    }

    private static func save(_ index: Int, _ fate: Fate) -> ParseObject {
        var object: ParseObject
        switch fate {
        case .user, .sameUsername: object = ParseObject(className: "_User", fields: ["username": .string("user-\(index / 8)")])
        case .stored, .lateForTheCommit: object = ParseObject(className: "Mixed", fields: ["n": .number(Double(index))])
        case .wrongType: object = ParseObject(className: "Mixed", fields: ["n": .string("not a number")])
        }
        object.objectId = "save\(index)"
        object.createdAt = Date()
        object.updatedAt = object.createdAt
        return object
    }

    /// Holds `database`'s writer until `count` writes wait for it, runs `writes` meanwhile, and
    /// answers their outcomes.
    private static func queuedBehindTheWriter(
        _ database: SQLiteAppDatabase, _ count: Int, _ writes: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> [Int: Result<Void, any Error>] {
        let gate = DispatchSemaphore(value: 0)
        database.pool.asyncWriteWithoutTransaction { _ in gate.wait() }
        return try await withThrowingTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        try await writes(index)
                        return (index, .success(()))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            // Every write is queued (the first one's group waits behind the gate).
            try await waitUntilQueued(count, database)
            gate.signal()
            var outcomes: [Int: Result<Void, any Error>] = [:]
            for try await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    /// Waits (20 s at most) until `count` writes wait for `database`'s writer.
    private static func waitUntilQueued(_ count: Int, _ database: SQLiteAppDatabase) async throws {
        let giveUp = ContinuousClock.now + .seconds(20)
        while database.writeGroups.queuedCount < count, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
        #expect(database.writeGroups.queuedCount == count)
    }

    @Test func savesThatFailInTheMiddleOfAGroupAnswerTheirErrorAndTheOthersAreStoredWithTheirAfterHooks() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = SQLiteObjectStore(database)
            // The class's `n` holds numbers.
            try await objects.insert(Self.save(1_001, .stored), outbox: nil)
            let before = database.writeGroups.committed
            let fates = (0..<80).map(Fate.init)
            let outcomes = try await Self.queuedBehindTheWriter(database, fates.count) { index in
                let object = Self.save(index, fates[index])
                let event = OutboxEvent(id: "event\(index)", kind: .afterSave, object: object, original: nil, caller: Caller(isMaster: true, requestId: "r\(index)"))
                // Two readings (as the write starts, as it ends) before the deadline, the one before the commit after it.
                let clock = ExpiringClock(freshReadings: fates[index] == .lateForTheCommit ? 2 : .max)
                try await WriteDeadline.$current.withValue(WriteDeadline(deadline: clock.start.addingTimeInterval(1), clock: clock)) {
                    try await objects.insert(object, outbox: event)
                }
            }
            let committed = database.writeGroups.committed
            // One group, unless the 10 ms bound splits it (a debug build on a loaded machine): far fewer than one per save.
            #expect(committed.groups - before.groups < fates.count / 4, "the saves queued behind the writer share transactions")

            var stored = 0
            for (index, fate) in fates.enumerated() {
                let outcome = try #require(outcomes[index])
                let code = { () -> Int? in
                    guard case .failure(let error) = outcome else { return nil }
                    return (error as? ParseError)?.code ?? -1
                }()
                let object = try await objects.fetch(Self.save(index, fate).className, id: "save\(index)")
                let afterHooks = try await database.pool.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM work_queue WHERE id = ?", arguments: ["event\(index)"])
                }
                #expect((object != nil) == (code == nil), "save \(index) (\(fate)) is stored if and only if it succeeded: \(outcome)")
                #expect(afterHooks == (code == nil ? 1 : 0), "save \(index)'s after hook is queued with it, or not at all")
                if code == nil { stored += 1 }
                switch fate {
                case .stored: #expect(code == nil)
                case .user, .sameUsername: #expect(code == nil || code == 202)
                case .wrongType: #expect(code == 111)
                case .lateForTheCommit: #expect(code == 124)
                }
            }
            // Of the two saves of each username, the one that ran first wins.
            for pair in 0..<(fates.count / 8) {
                let holders = try await database.pool.read { db in
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM objects WHERE class = '_User' AND json_extract(data, '$.username') = ?",
                        arguments: ["user-\(pair)"])
                }
                #expect(holders == 1, "username user-\(pair) is taken once")
            }
            #expect(committed.writes - before.writes == stored)
        }
    }

    @Test func aSaveIsAnsweredOnlyOnceItsGroupHasCommittedSoItsNextReadSeesIt() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = SQLiteObjectStore(database)
            let gate = DispatchSemaphore(value: 0)
            database.pool.asyncWriteWithoutTransaction { _ in gate.wait() }
            let quick = 5
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<quick {
                    group.addTask {
                        try await objects.insert(Self.save(index, .stored), outbox: nil)
                        // Read on another connection as soon as the save is answered.
                        return try await objects.fetch("Mixed", id: "save\(index)") != nil
                    }
                }
                try await Self.waitUntilQueued(quick, database)
                // The group's last write holds the transaction open a while after the quick ones ran.
                group.addTask {
                    try await database.write { db in
                        try db.execute(sql: "INSERT INTO classes (class) VALUES ('Slow')")
                        Thread.sleep(forTimeInterval: 0.3)
                    }
                    return true
                }
                try await Self.waitUntilQueued(quick + 1, database)
                gate.signal()
                for try await seen in group { #expect(seen, "a save answered 201 is read back at once") }
            }
        }
    }

    @Test func aGroupTakesAtMostItsBoundOfWrites() async throws {
        try await TemporaryStorage.with { database, _ in
            let objects = SQLiteObjectStore(database)
            let count = SQLiteWriteGroups.maximumWrites + 20
            let outcomes = try await Self.queuedBehindTheWriter(database, count) { index in
                try await objects.insert(Self.save(index, .stored), outbox: nil)
            }
            #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
            #expect(database.writeGroups.committed.groups >= 2)
            #expect(database.writeGroups.committed.writes == count)
        }
    }
}
