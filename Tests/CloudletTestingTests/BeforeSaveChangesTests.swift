import Cloudlet
import Foundation
import CloudletTesting
import Testing

/// A `beforeSave` answers only what it changed: what it sets, removes and leaves alone, the ACL
/// included, is what is stored, on a create and on an update.
@Suite struct BeforeSaveChangesTests {
    static func harness() throws -> HookHarness {
        var hooks = HookRegistry()
        hooks.beforeSave("Note") { request in
            request.object["draft"] = nil
            request.object["title"] = request.object["title"]?.stringValue.map { .string($0.uppercased()) }
            request.object["checkedAt"] = .date(ParseDate.date(from: "2026-01-02T03:04:05.000Z")!)
            if request.object["private"] == true { request.object.acl = .only(readers: ["owner"], writers: ["owner"]) }
            if request.object["public"] == true { request.object.acl = nil }
        }
        return try HookHarness(registry: hooks)
    }

    @Test func whatTheHookSetsRemovesAndLeavesIsStored() async throws {
        let harness = try Self.harness()
        let created = try await harness.create(
            "Note", ["title": "hello", "draft": true, "body": "kept as sent", "tags": ["a", "b"], "private": true])
        let id = try #require(created.objectId)
        let stored = try #require(try await harness.get("Note", id: id))
        #expect(stored["title"] == "HELLO")
        #expect(stored["draft"] == nil)
        #expect(stored["body"] == "kept as sent")
        #expect(stored["tags"] == ["a", "b"])
        #expect(stored["checkedAt"]?.dateValue == ParseDate.date(from: "2026-01-02T03:04:05.000Z"))
        #expect(stored.acl == .only(readers: ["owner"], writers: ["owner"]))

        let updated = try await harness.update("Note", id: id, ["draft": true, "title": "again"])
        #expect(updated.objectId == id)
        let again = try #require(try await harness.get("Note", id: id))
        #expect(again["title"] == "AGAIN")
        #expect(again["draft"] == nil)
        #expect(again["body"] == "kept as sent")
        #expect(again.acl == .only(readers: ["owner"], writers: ["owner"]), "the ACL the hook left alone")
    }

    @Test func anACLTheHookRemovesOnAnUpdateIsRemoved() async throws {
        let harness = try Self.harness()
        let created = try await harness.create("Note", ["title": "hello", "private": true])
        let id = try #require(created.objectId)
        #expect(try await harness.get("Note", id: id)?.acl == .only(readers: ["owner"], writers: ["owner"]))

        _ = try await harness.update("Note", id: id, ["private": false, "public": true])
        let opened = try #require(try await harness.get("Note", id: id))
        #expect(opened.acl == nil, "the hook took the ACL away")
        #expect(opened["public"] == true)
    }

    @Test func aFieldTheHookSetsIsCheckedAsAClientsWouldBe() async throws {
        var hooks = HookRegistry()
        hooks.beforeSave("Note") { request in request.object["bad name!"] = "x" }
        let harness = try HookHarness(registry: hooks)
        let error = try await #require(throws: ParseError.self) { try await harness.create("Note", ["title": "hi"]) }
        #expect(error.code == 105)
    }
}
