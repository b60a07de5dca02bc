import Cloudlet
import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres

/// On PostgreSQL every node's LiveQuery feed publishes what it hears of any node's commits: a
/// second node hears the first's writes and the first hears its own, each once, a change too large
/// for a notification through the schema's `live_changes` table; a node that stops listening, or
/// cannot read a change, tells its subscribers of a gap.
@Suite struct LiveChangesOnPostgresTests {
    static func note(_ id: String, _ fields: [String: ParseValue] = [:]) -> ParseObject {
        LiveChangesTests.note(id, fields)
    }

    /// How many rows the app's `live_changes` table holds.
    static func storedChanges(_ database: PostgresDatabase, _ schema: PostgresAppSchema) async throws -> Int {
        try await database.execute("SELECT id FROM \(schema.quoted).live_changes")
    }

    @Test func everyNodeHearsEachCommittedWriteOnceALargeOneThroughTheTable() async throws {
        try await TemporaryPostgres.with { database, schema in
            let a = try await AppStores(database, schema: schema)
            try await TemporaryPostgres.secondNode { other in
                let b = try await AppStores(other, schema: schema)
                for node in [a, b] { node.liveChanges.classNames = ["Note"] }
                let (heardByA, heardByB) = (LiveRecorder(a.liveChanges), LiveRecorder(b.liveChanges))
                // 12,000 bytes of text: past what a notification carries.
                let text = String(repeating: "é", count: 6_000)
                try await a.objects.insert(Self.note("small", ["n": 1]), outbox: nil)
                try await a.objects.insert(Self.note("large", ["n": 1, "text": .string(text)]), outbox: nil)
                let created = try #require(try await a.objects.fetch("Note", id: "large"))
                try await LiveChangesTests.increment(b, "large")
                let updated = try #require(try await b.objects.fetch("Note", id: "large"))
                try await a.objects.delete("Note", id: "large", check: { _ in }, outbox: nil)
                try await b.objects.insert(Self.note("marker"), outbox: nil)

                let (byA, byB) = (try await heardByA.changes(of: "marker"), try await heardByB.changes(of: "marker"))
                #expect(byA == byB)
                #expect(byA.map { "\($0.kind) \($0.object.objectId!)" } == ["create small", "create large", "update large", "delete large", "create marker"])
                #expect(
                    Array(byA[1...3]) == [
                        CommittedObjectChange(kind: .create, object: created, original: nil),
                        CommittedObjectChange(kind: .update, object: updated, original: created),
                        CommittedObjectChange(kind: .delete, object: updated, original: nil),
                    ])
                #expect(try await Self.storedChanges(database, schema) == 3, "the large changes alone go through the table")
            }
        }
    }

    @Test func aLargeChangesWritePrunesTheRowsPastTheirRetention() async throws {
        try await TemporaryPostgres.with { database, schema in
            let stores = try await AppStores(database, schema: schema)
            stores.liveChanges.classNames = ["Note"]
            let heard = LiveRecorder(stores.liveChanges)
            try await database.execute("INSERT INTO \(schema.quoted).live_changes (written_at, change) VALUES (now() - interval '1 hour', '{}')")
            try await database.execute("INSERT INTO \(schema.quoted).live_changes (change) VALUES ('{}')")
            try await stores.objects.insert(Self.note("large", ["text": .string(String(repeating: "x", count: 9_000))]), outbox: nil)
            #expect(try await heard.changes(of: "large").count == 1)
            #expect(try await database.execute("SELECT id FROM \(schema.quoted).live_changes WHERE written_at < now() - interval '1 minute'") == 0)
            #expect(try await Self.storedChanges(database, schema) == 2, "the recent row stays, beside the new one")
        }
    }

    @Test func aNodeThatStopsListeningTellsOfAGapThenHearsAgain() async throws {
        try await TemporaryPostgres.with { database, schema in
            let stores = try await AppStores(database, schema: schema)
            stores.liveChanges.classNames = ["Note"]
            let heard = LiveRecorder(stores.liveChanges)
            let listener = try #require(database.notifications.listenerProcessId)
            #expect(try await database.execute("SELECT pg_terminate_backend(\(listener))") == 1)
            // Once when it stops hearing, once when it hears again.
            #expect(try await heard.gaps(atLeast: 2))
            try await stores.objects.insert(Self.note("after"), outbox: nil)
            #expect(try await heard.changes(of: "after").map(\.object.objectId) == ["after"])
        }
    }

    @Test func aChangeThatCannotBeReadIsAGap() async throws {
        try await TemporaryPostgres.with { database, schema in
            let stores = try await AppStores(database, schema: schema)
            stores.liveChanges.classNames = ["Note"]
            let heard = LiveRecorder(stores.liveChanges)
            let feed = database.liveFeed(of: schema)
            for detail in ["#999999", "{not json"] {
                let before = heard.gaps
                await feed.hear(detail, in: schema, reading: database.client, logger: database.logger)
                #expect(heard.gaps == before + 1, "\(detail)")
            }
        }
    }
}
