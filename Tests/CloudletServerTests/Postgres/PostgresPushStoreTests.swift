import Cloudlet
import CloudletRuntime
import Foundation
import Testing

@testable import CloudletPostgres

/// What the PostgreSQL push store does beyond what both stores share: a page another node queued
/// earlier, read again after its deliveries ended, queues none of them again; a job recorded wakes
/// every node; and two apps in one database, with the same classes, installations and job ids, stay apart.
@Suite struct PostgresPushStoreTests {
    typealias App = PushStoreTests.App

    static func app(_ database: PostgresDatabase, _ schema: PostgresAppSchema) async throws -> App {
        try await TestApp.postgres(database, schema).push()
    }

    @Test func aPageReadAgainAfterItsDeliveriesEndedQueuesNoneOfThemAgain() async throws {
        try await TemporaryPostgres.with { database, schema in
            let app = try await Self.app(database, schema)
            try await PushStoreTests.seed(app, installations: 6)
            try await app.push.startPushJob("job1", now: PushStoreTests.now)
            let stale = try await app.push.pushRecipients(PushRecipients.pageQuery([:], after: nil, limit: 3))
            try await app.push.expandPushJob("job1", recipients: stale, cursor: "i02", isLast: false, badgeIncrement: nil, now: PushStoreTests.now)
            for delivery in try await PushStoreTests.claim(app, owner: "n") {
                #expect(try await app.push.recordPushResult(PushDeliveryResult(delivery, .sent), owner: "n", now: PushStoreTests.now))
            }
            // Another node, whose fan-out started from the same cursor, queues the same page late.
            try await app.push.expandPushJob("job1", recipients: stale, cursor: "i02", isLast: false, badgeIncrement: nil, now: PushStoreTests.now)
            #expect(try await PushStoreTests.claim(app, owner: "n").isEmpty)
            #expect(try await app.push.pushJobProgress("job1") == PushJobProgress(jobId: "job1", cursor: "i02", isExpanded: false, isFinished: false, pending: 0))
            try await PushStoreTests.expand(app, pageSize: 3)
            #expect(try await PushStoreTests.claim(app, owner: "n").map(\.installationId).sorted() == ["i03", "i04", "i05"])
            #expect(try await PushStoreTests.status(app)["count"] == 6)
        }
    }

    @Test func aJobRecordedOnOneNodeWakesTheQueueOfEveryNode() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let app = try await Self.app(database, schema)
                let elsewhere = try await PostgresWorkQueue(other, schema: schema)
                let woken = elsewhere.workQueued.count
                try await PushStoreTests.recordJob(app)
                var waited = 0
                while elsewhere.workQueued.count == woken, waited < 200 {
                    try await Task.sleep(for: .milliseconds(25))
                    waited += 1
                }
                #expect(elsewhere.workQueued.count > woken, "the trigger that queued the fan-out notified every node")
            }
        }
    }

    @Test func twoAppsWithTheSameClassesAndJobsStayApart() async throws {
        try await TemporaryPostgres.with { database, schema in
            let neighbour = PostgresAppSchema(appId: "test-" + UUID().uuidString.prefix(8).lowercased())
            defer { Task { [database] in _ = try? await database.execute("DROP SCHEMA IF EXISTS \(neighbour.quoted) CASCADE") } }
            let (mine, theirs) = (try await Self.app(database, schema), try await Self.app(database, neighbour))
            try await PushStoreTests.seed(mine, installations: 3)
            try await PushStoreTests.seed(theirs, installations: 2)
            for app in [mine, theirs] { try await app.push.startPushJob("job1", now: PushStoreTests.now) }
            let theirStatus = try await PushStoreTests.status(theirs)
            try await PushStoreTests.expand(mine, pageSize: 10)
            #expect(try await theirs.push.pushJobProgress("job1")?.pending == 0)
            #expect(
                try await theirs.work.claim([.pushDelivery], limit: 10, owner: "n", at: PushStoreTests.now, leasedUntil: PushStoreTests.now + 60).map(\.id)
                    == [PushDelivery.fanOutId(job: "job1")])
            for delivery in try await PushStoreTests.claim(mine, owner: "n") {
                #expect(try await mine.push.recordPushResult(PushDeliveryResult(delivery, .sent), owner: "n", now: PushStoreTests.now))
            }
            #expect(try await PushStoreTests.status(mine)["numSent"] == 3)
            #expect(try await PushStoreTests.status(theirs) == theirStatus)

            let schemas = (try await PostgresSchemaStore(database, schema: schema), try await PostgresSchemaStore(database, schema: neighbour))
            let games = StoredClassSchema(className: "Games", fieldTypes: ["score": .number], indexes: ["by_score": [.init(field: "score", ascending: true)]])
            try await schemas.0.createClass(games)
            try await schemas.1.createClass(games)
            try await schemas.0.deleteClass("Games")
            #expect(try await schemas.1.storedClass("Games") == games)
            #expect(try await PostgresSchemaStoreTests.indexDefinition(database, neighbour, "schema_5_Games_by_score") != nil)
        }
    }
}
