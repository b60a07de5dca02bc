import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletServer
@testable import CloudletSQLite

/// After hooks as rows of the work queue on SQLite: what an owed one keeps, how a held one waits
/// for its lease, and the outbox rows of an older database carried into the queue.
@Suite struct AfterHookQueueTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func event(caller: Caller, hold: WorkHold? = nil) -> OutboxEvent {
        var object = ParseObject(className: "Note", fields: ["text": "hi"])
        object.objectId = "note1"
        object.createdAt = now
        object.updatedAt = now
        return OutboxEvent(kind: .afterSave, object: object, original: nil, caller: caller, hold: hold)
    }

    @Test func anOwedAfterHookKeepsItsWholeCallerInItsQueuedRow() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            let caller = Caller(userId: "u1", roles: ["editors", "admins"], isMaster: false, installationId: "device", requestId: "r1")
            let owed = event(caller: caller)
            try await stores.objects.insert(owed.object, outbox: owed)
            let claimed = try #require(try await stores.work.claim([.afterHook], limit: 10, owner: "next", at: now, leasedUntil: now + 10).first)
            #expect(claimed.id == owed.id)
            let replayed = try #require(OutboxEventCoding.decode(claimed.payload))
            #expect(replayed.id == owed.id)
            #expect(replayed.object.fields["text"] == "hi")
            #expect(replayed.caller.userId == "u1")
            #expect(replayed.caller.roles == ["editors", "admins"])
            #expect(replayed.caller.isMaster == false)
            #expect(replayed.caller.installationId == "device")
        }
    }

    @Test func aHeldAfterHookIsClaimedOnlyOnceItsHoldersLeaseRanOut() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            let held = event(caller: Caller(isMaster: true, requestId: "r2"), hold: WorkHold(owner: "runtime", leasedUntil: now + 10))
            try await stores.objects.insert(held.object, outbox: held)
            #expect(try await stores.work.claim([.afterHook], limit: 10, owner: "loop", at: now + 9, leasedUntil: now + 19).isEmpty)
            let taken = try #require(try await stores.work.claim([.afterHook], limit: 10, owner: "loop", at: now + 10, leasedUntil: now + 20).first)
            #expect(taken.attempts == 2, "the holder's run was the first attempt")
            #expect(try await stores.work.complete(held.id, owner: "runtime") == false, "its first holder no longer holds it")
        }
    }

    @Test func aRefusedWriteQueuesNoAfterHook() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            let first = event(caller: Caller(isMaster: true, requestId: "r3"))
            try await stores.objects.insert(first.object, outbox: nil)
            let again = event(caller: Caller(isMaster: true, requestId: "r4"))
            await #expect(throws: (any Error).self) { try await stores.objects.insert(again.object, outbox: again) }
            #expect(try await stores.work.nextDue([.afterHook]) == nil)
        }
    }
}

/// A data folder made before after hooks were queued work keeps the after hooks it still owed:
/// the migration moves its `outbox` rows into the work queue, due at once, and drops the table.
@Suite struct AfterHookMigrationTests {
    @Test func outboxRowsOfAnOlderDatabaseAreQueuedInOrderAndTheOutboxIsDropped() async throws {
        let old = try await OldAppDatabase(madeUpTo: "work_queue") { db in
            // Rows as the outbox held them: the event's members, the object and original as REST JSON.
            try db.execute(
                sql: """
                    INSERT INTO outbox (id, event) VALUES
                        ('e2', '{"id":"e2","kind":"afterSave","className":"Note","caller":{"master":false,"requestId":"r2","roles":["staff"],"userId":"u2"},"object":{"objectId":"n2","text":"second","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:01.000Z"},"original":{"objectId":"n2","text":"first","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}}'),
                        ('e1', '{"id":"e1","kind":"afterDelete","className":"Note","caller":{"master":true,"requestId":"r1","roles":[]},"object":{"objectId":"n1","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}}');
                    """)
        }
        defer { old.remove() }
        let path = old.path
        let database = try SQLiteAppDatabase(path: path)
        let stores = AppStores(database)
        let now = Date()
        let queued = try await stores.work.claim([.afterHook], limit: 10, owner: "new", at: now, leasedUntil: now + 10)
        #expect(queued.map(\.id) == ["e2", "e1"], "due at once, in the outbox's order")
        let events = queued.compactMap { OutboxEventCoding.decode($0.payload) }
        #expect(events.map(\.kind) == [.afterSave, .afterDelete])
        #expect(events.first?.object["text"] == "second")
        #expect(events.first?.original?["text"] == "first")
        #expect(events.first?.caller.userId == "u2")
        #expect(events.first?.caller.roles == ["staff"])
        #expect(events.last?.caller.isMaster == true)
        #expect(try await database.pool.read { db in try db.tableExists("outbox") } == false)
    }
}
