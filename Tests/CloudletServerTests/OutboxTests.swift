import Cloudlet
import CloudletServer
import Foundation
import Testing

/// The outbox on SQLite: what an owed after hook keeps, and when a completed one is gone for good.
@Suite struct OutboxTests {
    private func withStorage(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.appendingPathComponent("app.sqlite"))
    }

    private func event(caller: Caller) -> OutboxEvent {
        var object = ParseObject(className: "Note", fields: ["text": "hi"])
        object.objectId = "note1"
        object.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        object.updatedAt = object.createdAt
        return OutboxEvent(kind: .afterSave, object: object, original: nil, caller: caller)
    }

    @Test func anOwedEventKeepsItsWholeCallerForTheReplay() async throws {
        try await withStorage { path in
            let storage = try SQLiteObjectStorage(path: path.path)
            let caller = Caller(userId: "u1", roles: ["editors", "admins"], isMaster: false, installationId: "device", requestId: "r1")
            let owed = event(caller: caller)
            try await storage.insert(owed.object, outbox: owed)
            let replayed = try #require(try await storage.pendingOutboxEvents().first)
            #expect(replayed.caller.userId == "u1")
            #expect(replayed.caller.roles == ["editors", "admins"])
            #expect(replayed.caller.isMaster == false)
            #expect(replayed.caller.installationId == "device")
        }
    }

    @Test func aCompletedEventIsNotPendingAtOnceAndGoneForTheNextProcessOnceTheNextWriteCommits() async throws {
        try await withStorage { path in
            let storage = try SQLiteObjectStorage(path: path.path)
            let owed = event(caller: Caller(isMaster: true, requestId: "r2"))
            try await storage.insert(owed.object, outbox: owed)
            storage.completeOutboxEvent(owed.id)
            #expect(try await storage.pendingOutboxEvents().isEmpty)
            #expect(try await !storage.isOutboxEventPending(owed.id))
            // The deletion rides along with the next write; then the process is killed, with no clean close.
            try await storage.insert(ParseObject(className: "Other", objectId: "o1", createdAt: Date(), updatedAt: Date()), outbox: nil)
            let nextProcess = try SQLiteObjectStorage(path: path.path)
            #expect(try await nextProcess.pendingOutboxEvents().isEmpty)
            #expect(try await !nextProcess.isOutboxEventPending(owed.id))
        }
    }
}
