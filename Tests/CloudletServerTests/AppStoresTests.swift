import Cloudlet
import Foundation
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite

/// One app's stores, each a small type over the app's one database: what one store writes the
/// others see, and a write that spans features stays one transaction.
@Suite struct AppStoresTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func user(_ id: String, username: String) -> ParseObject {
        ParseObject(className: "_User", objectId: id, createdAt: now, updatedAt: now, acl: ParseACL(), fields: ["username": .string(username)])
    }

    private func session(_ tokenHash: String, of userId: String) -> SessionRecord {
        SessionRecord(tokenHash: tokenHash, userId: userId, installationId: nil, createdAt: now, expiresAt: now + 3_600)
    }

    private func pushJob(_ id: String) -> ParseObject {
        let job = PushJob(id: id, status: .pending, source: "rest", query: [:], data: ["alert": "Hi"])
        return ParseObject(className: "_PushStatus", objectId: id, createdAt: now, updatedAt: now, acl: ParseACL(), fields: job.fields)
    }

    @Test func aUserStoredThroughTheAccountsIsAnObjectAndDeletingTheObjectEndsItsAccount() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            try await stores.accounts.insertUser(user("u1", username: "ada"), passwordHash: "hash", session: session("s1", of: "u1"), outbox: nil, alongside: [])
            #expect(try await stores.objects.fetch("_User", id: "u1")?["username"] == "ada")
            #expect(try await stores.accounts.session(tokenHash: "s1")?.userId == "u1")
            try await stores.objects.delete("_User", id: "u1", check: { _ in }, outbox: nil)
            #expect(try await stores.accounts.passwordHash(ofUser: "u1") == nil)
            #expect(try await stores.accounts.session(tokenHash: "s1") == nil)
        }
    }

    @Test func aPushJobSavedAsAnObjectHasItsFanOutQueuedAndWakesTheWorkLoop() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            try await stores.objects.insert(pushJob("job1"), outbox: nil)
            await stores.work.workQueued.wait()
            #expect(try await stores.push.pushJobProgress("job1")?.isFinished == false)
            let claimed = try await stores.work.claim([.pushDelivery], limit: 10, owner: "test", at: now, leasedUntil: now + 30)
            #expect(claimed.map(\.id) == [PushDelivery.fanOutId(job: "job1")])
        }
    }

    @Test func aRefusedSignUpLeavesNeitherItsAfterHookNorThePushJobRecordedAlongside() async throws {
        try await TemporaryStorage.with { database, _ in
            let stores = AppStores(database)
            try await stores.accounts.insertUser(user("u1", username: "ada"), passwordHash: "hash", session: session("s1", of: "u1"), outbox: nil, alongside: [])
            let second = user("u2", username: "ada")
            let owed = OutboxEvent(kind: .afterSave, object: second, original: nil, caller: Caller(isMaster: true, requestId: "r1"))
            await #expect(throws: ParseError.self) {
                try await stores.accounts.insertUser(
                    second, passwordHash: "hash", session: session("s2", of: "u2"), outbox: owed, alongside: [pushJob("job2")])
            }
            #expect(try await stores.objects.fetch("_PushStatus", id: "job2") == nil)
            #expect(try await stores.push.pushJobProgress("job2") == nil)
            #expect(try await stores.work.nextDue([.afterHook, .pushDelivery]) == nil)
            #expect(try await stores.accounts.session(tokenHash: "s2") == nil)
        }
    }

    @Test func everyStoreOfTheBundleIsOverTheDatabaseItWasBuiltFrom() async throws {
        try await TemporaryStorage.with { database, file in
            let stores = AppStores(database)
            #expect(try await stores.fileUsage.startStoredFileBytes(at: 42) == 42)
            try await stores.jobs.saveJobScheduleState(JobScheduleState(expression: "* * * * *", handledThrough: now), of: "tidy")
            try await stores.hookRuns.appendHookRuns(
                [HookRun(hook: "beforeSave Note", requestId: "r1", startedAt: now, duration: .milliseconds(2), outcome: .ok)], retention: 10)
            let reopened = AppStores(try SQLiteAppDatabase(path: file.path))
            #expect(try await reopened.fileUsage.storedFileBytes() == 42)
            #expect(try await reopened.jobs.jobScheduleStates()["tidy"]?.handledThrough == now)
            #expect(try await reopened.hookRuns.hookRuns(HookRunQuery(limit: 10)).map(\.requestId) == ["r1"])
        }
    }
}
