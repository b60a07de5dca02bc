import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// Saves and deletes on both stores: field operations applied to the stored values, field types
/// recorded by the first write and enforced after, the after hook queued in the write's
/// transaction, and a refused write leaving nothing behind.
@Suite struct ObjectWritesOnBothStoresTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private static let master = Caller(isMaster: true, requestId: "r")

    private func note(_ id: String, _ fields: [String: ParseValue]) -> ParseObject {
        var object = ParseObject(className: "Note", fields: fields)
        object.objectId = id
        object.createdAt = now
        object.updatedAt = now
        return object
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func anUpdateAppliesItsOperationsToTheStoredValues(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            try await store.insert(note("a", ["n": 1, "tags": ["x"], "gone": "soon"]), nil)
            var changes = ObjectChanges(
                fields: [
                    "n": .operation(.increment(2)), "tags": .operation(.addUnique(["x", "y"])), "gone": .operation(.delete), "s": .set("hi"),
                ], acl: ParseACL(json: ["u1": ["read": true, "write": true]]))
            changes.fields["more"] = .operation(.add([1, 2]))
            let (written, _) = try await store.update("Note", "a", changes, now + 5, { _ in }, nil)
            let stored = try #require(try await store.fetch("Note", "a"))
            #expect(stored == written)
            #expect(stored.fields == ["n": 3, "tags": ["x", "y"], "s": "hi", "more": [1, 2]])
            #expect(stored.acl == ParseACL(json: ["u1": ["read": true, "write": true]]))
            #expect(stored.updatedAt == now + 5)
            #expect(stored.createdAt == now)
        }
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func aFieldKeepsTheTypeItWasFirstWrittenWith(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            try await store.insert(note("a", ["n": 1]), nil)
            let error = await #expect(throws: ParseError.self) { try await store.insert(self.note("b", ["n": "one"]), nil) }
            #expect(error?.code == 111)
            let update = await #expect(throws: ParseError.self) {
                try await store.update("Note", "a", ObjectChanges(fields: ["n": .set(["not": "a number"])]), self.now, { _ in }, nil)
            }
            #expect(update?.code == 111)
            #expect(try await store.fetch("Note", "b") == nil, "the refused insert stored nothing")
            #expect(try await store.fetch("Note", "a")?.fields["n"] == 1)
            try await store.insert(note("c", ["n": 2.5, "other": true]), nil)
        }
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func aWriteQueuesItsAfterHookAndARefusedOneQueuesNone(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            let object = note("a", ["text": "hi"])
            let saved = OutboxEvent(kind: .afterSave, object: object, original: nil, caller: Self.master)
            try await store.insert(object, saved)
            await #expect(throws: ParseError.self) {
                _ = try await store.update(
                    "Note", "a", ObjectChanges(fields: ["text": .set("no")]), self.now, { _ in throw ParseError.objectNotFound() },
                    { OutboxEvent(kind: .afterSave, object: $0, original: object, caller: Self.master) })
            }
            await #expect(throws: ParseError.self) {
                try await store.delete("Note", "missing", { _ in }, { OutboxEvent(kind: .afterDelete, object: $0, original: nil, caller: Self.master) })
            }
            let deleted = try await store.delete("Note", "a", { _ in }, { OutboxEvent(kind: .afterDelete, object: $0, original: nil, caller: Self.master) })
            #expect(try await store.fetch("Note", "a") == nil)
            let queued = try await store.work.claim([.afterHook], limit: 10, owner: "loop", at: now, leasedUntil: now + 10)
            #expect(Set(queued.map(\.id)) == Set([saved.id, try #require(deleted).id]), "the save's and the delete's, not the refused update's")
            let events = queued.compactMap { OutboxEventCoding.decode($0.payload) }
            #expect(Set(events.map(\.kind)) == [.afterSave, .afterDelete])
            #expect(events.allSatisfy { $0.object["text"] == "hi" })
        }
    }

    @Test(arguments: ObjectStoreUnderTest.Kind.allCases) func anObjectPastTheSizeBoundIsRefusedWith116(_ kind: ObjectStoreUnderTest.Kind) async throws {
        try await ObjectStoreUnderTest.with(kind) { store in
            let huge = note("a", ["blob": .string(String(repeating: "x", count: 1 << 20))])
            let error = await #expect(throws: ParseError.self) { try await store.insert(huge, nil) }
            #expect(error?.code == 116)
            try await store.insert(note("b", ["n": 1]), nil)
            let grown = await #expect(throws: ParseError.self) {
                try await store.update("Note", "b", ObjectChanges(fields: ["blob": .set(.string(String(repeating: "y", count: 1 << 20)))]), self.now, { _ in }, nil)
            }
            #expect(grown?.code == 116)
            #expect(try await store.fetch("Note", "a") == nil)
            #expect(try await store.fetch("Note", "b")?.fields == ["n": 1])
        }
    }
}
