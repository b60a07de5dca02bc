import Cloudlet
import CloudletRuntime
import Foundation
import Synchronization
import Testing

/// The committed writes of an app's objects reach its LiveQuery feed (``AppStores/liveChanges``)
/// on both stores: each write of a class the feed publishes, once, after its commit and in commit
/// order, with the object as a read answers it and what it was before; nothing of a class not
/// published, nor of a write that rolled back.
@Suite struct LiveChangesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000.123_456)

    static func note(_ id: String, _ fields: [String: ParseValue] = [:], className: String = "Note") -> ParseObject {
        ParseObject(className: className, objectId: id, createdAt: now, updatedAt: now, fields: fields)
    }

    static func increment(_ stores: AppStores, _ id: String, by amount: Double = 1, at time: Date = now + 1, check: @escaping @Sendable (ParseObject) throws -> Void = { _ in })
        async throws
    {
        _ = try await stores.objects.update(
            "Note", id: id, changes: ObjectChanges(fields: ["n": .operation(.increment(amount))]), updatedAt: time, check: check, outbox: nil,
            alongside: [])
    }

    @Test(arguments: TestStore.allCases)
    func aCreateAnUpdateAndADeletePublishTheObjectAsReadAndItsOriginal(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.stores() } }) { stores, _ in
            stores.liveChanges.classNames = ["Note"]
            let heard = LiveRecorder(stores.liveChanges)
            try await stores.objects.insert(Self.note("a", ["n": 1, "tags": ["x"]]), outbox: nil)
            let created = try #require(try await stores.objects.fetch("Note", id: "a"))
            try await Self.increment(stores, "a", by: 2)
            let updated = try #require(try await stores.objects.fetch("Note", id: "a"))
            try await stores.objects.delete("Note", id: "a", check: { _ in }, outbox: nil)

            let changes = try await heard.changes(through: .delete, of: "a")
            #expect(
                changes == [
                    CommittedObjectChange(kind: .create, object: created, original: nil),
                    CommittedObjectChange(kind: .update, object: updated, original: created),
                    CommittedObjectChange(kind: .delete, object: updated, original: nil),
                ])
            #expect(updated["n"] == 3 && created.createdAt == updated.createdAt)
        }
    }

    @Test(arguments: TestStore.allCases)
    func aClassNotListedPublishesNothing(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.stores() } }) { stores, _ in
            stores.liveChanges.classNames = ["Note"]
            let heard = LiveRecorder(stores.liveChanges)
            try await stores.objects.insert(Self.note("o", ["n": 1], className: "Other"), outbox: nil)
            _ = try await stores.objects.update(
                "Other", id: "o", changes: ObjectChanges(fields: ["n": .set(2)]), updatedAt: Self.now, check: { _ in }, outbox: nil, alongside: [])
            try await stores.objects.delete("Other", id: "o", check: { _ in }, outbox: nil)
            try await stores.objects.insert(Self.note("marker"), outbox: nil)
            #expect(try await heard.changes(of: "marker").map(\.object.className) == ["Note"])
        }
    }

    @Test(arguments: TestStore.allCases)
    func writesThatRollBackPublishNothing(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.stores() } }) { stores, _ in
            stores.liveChanges.classNames = ["Note", "_User"]
            let heard = LiveRecorder(stores.liveChanges)
            try await stores.objects.insert(Self.note("a", ["n": 1]), outbox: nil)
            // A check that refuses, inside the write's transaction.
            await #expect(throws: ParseError.self) {
                try await Self.increment(stores, "a", check: { _ in throw ParseError(code: 101, message: "refused") })
            }
            // A write refused by the store: a username taken.
            let ada = ParseObject(className: "_User", objectId: "u1", createdAt: Self.now, updatedAt: Self.now, fields: ["username": "ada"])
            try await stores.accounts.insertUser(ada, passwordHash: nil, session: nil, outbox: nil, alongside: [])
            var twin = ada
            twin.objectId = "u2"
            await #expect(throws: ParseError.self) { try await stores.accounts.insertUser(twin, passwordHash: nil, session: nil, outbox: nil, alongside: []) }
            // A write whose deadline passes after it ran, before its commit.
            let deadline = WriteDeadline(deadline: Self.now + 10, clock: PassingClock(readsBefore: 1, deadline: Self.now + 10))
            await #expect(throws: ParseError.self) {
                try await WriteDeadline.$current.withValue(deadline) { try await Self.increment(stores, "a") }
            }
            try await stores.objects.insert(Self.note("marker"), outbox: nil)

            let changes = try await heard.changes(of: "marker")
            #expect(changes.map(\.kind) == [.create, .create, .create])
            #expect(changes.map(\.object.objectId) == ["a", "u1", "marker"])
            #expect(try await stores.objects.fetch("Note", id: "a")?["n"] == 1)
        }
    }

    @Test(arguments: TestStore.allCases)
    func concurrentUpdatesOfOneObjectArePublishedInCommitOrder(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.stores() } }) { stores, _ in
            stores.liveChanges.classNames = ["Note"]
            let heard = LiveRecorder(stores.liveChanges)
            try await stores.objects.insert(Self.note("a", ["n": 0]), outbox: nil)
            let count = 24
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<count { group.addTask { try await Self.increment(stores, "a") } }
                try await group.waitForAll()
            }
            try await stores.objects.insert(Self.note("marker"), outbox: nil)

            let updates = try await heard.changes(of: "marker").filter { $0.kind == .update }
            #expect(updates.map { $0.object["n"] } == (1...count).map { .number(Double($0)) })
            for (earlier, later) in zip(updates, updates.dropFirst()) { #expect(later.original == earlier.object) }
        }
    }

    @Test(arguments: TestStore.allCases)
    func parsesOwnClassesPublishWhenListed(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.stores() } }) { stores, _ in
            stores.liveChanges.classNames = ["_User", "_JobStatus", "_Installation", "_PushStatus"]
            let heard = LiveRecorder(stores.liveChanges)
            let user = ParseObject(className: "_User", objectId: "u1", createdAt: Self.now, updatedAt: Self.now, fields: ["username": "ada"])
            try await stores.accounts.insertUser(user, passwordHash: "hash", session: nil, outbox: nil, alongside: [])
            // A job run, started and ended.
            let run = JobStatus.running(id: "run1", jobName: "nightly", source: .api, params: [:], at: Self.now)
            #expect(
                try await stores.jobs.recordJobStart(
                    run, work: NewWork(id: "run1", kind: .job, payload: ["name": "nightly"], due: Self.now), maximumRunning: 4, exclusive: false)
                    == .started)
            #expect(try await stores.jobs.updateRunningJob("run1", fields: ["status": "succeeded"], updatedAt: Self.now + 1))
            // A push job raising an installation's badge.
            let app: PushStoreTests.App = (stores.push, stores.work, TestObjects(stores.objects))
            try await app.objects.insert(PushStoreTests.installation("i1", token: "t1"))
            try await PushStoreTests.recordJob(app, "push1")
            try await PushStoreTests.expand(app, "push1", pageSize: 10, badgeIncrement: 1)
            try await stores.objects.insert(Self.note("marker", className: "_Installation"), outbox: nil)

            let changes = try await heard.changes(of: "marker")
            let of = { (className: String) in changes.filter { $0.object.className == className } }
            #expect(of("_User").map(\.kind) == [.create])
            #expect(of("_User").first?.object["username"] == "ada")
            #expect(of("_JobStatus").map(\.kind) == [.create, .update])
            #expect(of("_JobStatus").last?.object["status"] == "succeeded" && of("_JobStatus").last?.original?["status"] == "running")
            let badge = of("_Installation").filter { $0.object.objectId == "i1" }
            #expect(badge.map(\.kind) == [.create, .update])
            #expect(badge.last?.object["badge"] == 1 && badge.last?.original?["badge"] == nil)
            let push = of("_PushStatus")
            #expect(push.first?.kind == .create && push.count >= 2)
            for (earlier, later) in zip(push, push.dropFirst()) { #expect(later.kind == .update && later.original == earlier.object) }
        }
    }
}

/// A clock whose time is before `deadline` for its first `readsBefore` reads, then past it: a
/// write's deadline that passes once its body has run.
private final class PassingClock: CloudletClock {
    private let reads = Mutex(0)
    private let readsBefore: Int
    private let deadline: Date

    init(readsBefore: Int, deadline: Date) {
        self.readsBefore = readsBefore
        self.deadline = deadline
    }

    var now: Date {
        reads.withLock { reads in
            reads += 1
            return reads <= readsBefore ? deadline - 1 : deadline + 1
        }
    }

    func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm {
        SystemClock().schedule(at: deadline, action)
    }
}
