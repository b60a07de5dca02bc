import Cloudlet
import Foundation
import Testing

@testable import CloudletPostgres
@testable import CloudletRuntime

/// Job runs and schedules on both stores: the bound on runs at once and exclusive starts checked
/// with the write, each run queued with it, a run updated only while it runs, and schedule states
/// kept across a reopening.
@Suite struct JobStoreTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func start(_ name: String, on jobs: any JobStorage, maximumRunning: Int = 2, exclusive: Bool = false) async throws -> (String, JobStartOutcome) {
        let id = ObjectId.new()
        let status = JobStatus.running(id: id, jobName: name, source: .api, params: ["n": 1], at: now)
        let work = NewWork(id: id, kind: .job, payload: ["name": .string(name)], due: now)
        return (id, try await jobs.recordJobStart(status, work: work, maximumRunning: maximumRunning, exclusive: exclusive))
    }

    @Test(arguments: TestStore.allCases) func startsAreBoundedExclusiveAndQueuedWithTheirRun(_ store: TestStore) async throws {
        try await store.with(TestApp.jobs) { app, _ in
            let (first, started) = try await start("tidy", on: app.jobs)
            #expect(started == .started)
            #expect(try await start("report", on: app.jobs).1 == .started)
            #expect(try await start("other", on: app.jobs).1 == .tooManyRunning)
            #expect(try await start("tidy", on: app.jobs, maximumRunning: 5, exclusive: true).1 == .alreadyRunning)
            #expect(try await start("mail", on: app.jobs, maximumRunning: 5, exclusive: true).1 == .started)
            let queued = try await app.work.claim([.job], limit: 10, owner: "loop", at: now, leasedUntil: now + 30)
            #expect(queued.count == 3, "each started run queued, no refused one")
            #expect(queued.contains { $0.id == first })
        }
    }

    @Test(arguments: TestStore.allCases) func aRunIsUpdatedOnlyWhileItRuns(_ store: TestStore) async throws {
        try await store.with(TestApp.jobs) { app, _ in
            let (id, _) = try await start("tidy", on: app.jobs)
            #expect(try await app.jobs.updateRunningJob(id, fields: ["message": "half way"], updatedAt: now + 1))
            #expect(try await app.jobs.updateRunningJob(id, fields: JobStatus.ended(.succeeded, message: nil, at: now + 2), updatedAt: now + 2))
            #expect(try await app.jobs.updateRunningJob(id, fields: ["message": "too late"], updatedAt: now + 3) == false)
            #expect(try await app.jobs.updateRunningJob("missing", fields: ["message": "x"], updatedAt: now + 3) == false)
            #expect(try await start("tidy", on: app.jobs, maximumRunning: 1, exclusive: true).1 == .started, "an ended run makes room")
        }
    }

    @Test(arguments: TestStore.allCases) func scheduleStatesAreKeptAcrossAReopening(_ store: TestStore) async throws {
        try await store.with(TestApp.jobs) { app, reopen in
            let state = JobScheduleState(expression: "*/5 * * * *", handledThrough: now, lastRunAt: now - 60, lastStatusId: "s1", skippedRuns: 2)
            try await app.jobs.saveJobScheduleState(state, of: "tidy")
            try await app.jobs.saveJobScheduleState(JobScheduleState(expression: "0 * * * *", handledThrough: now), of: "report")
            var changed = state
            changed.skippedRuns = 3
            try await app.jobs.saveJobScheduleState(changed, of: "tidy")
            let states = try await reopen().jobs.jobScheduleStates()
            #expect(states == ["tidy": changed, "report": JobScheduleState(expression: "0 * * * *", handledThrough: now)])
        }
    }

    @Test(arguments: TestStore.allCases) func oneOfTwoSchedulersReadingOneStateClaimsItsDueTime(_ store: TestStore) async throws {
        try await store.with(TestApp.jobs) { app, reopen in
            try await app.jobs.saveJobScheduleState(JobScheduleState(expression: "* * * * *", handledThrough: now), of: "tidy")
            let other = try await reopen().jobs
            // Both read the state as it was; the first claim moves it, the second finds it moved.
            #expect(try await app.jobs.claimJobSchedule("tidy", expression: "* * * * *", handledThrough: now, now: now + 60))
            #expect(try await !other.claimJobSchedule("tidy", expression: "* * * * *", handledThrough: now, now: now + 61))
            #expect(try await !other.claimJobSchedule("tidy", expression: "0 * * * *", handledThrough: now + 60, now: now + 61), "another expression")
            #expect(try await !other.claimJobSchedule("missing", expression: "* * * * *", handledThrough: now, now: now + 61))
            #expect(try await other.jobScheduleStates()["tidy"]?.handledThrough == now + 60)
        }
    }

    @Test func twoNodesStartingRunsAtOnceCannotBothPassTheBound() async throws {
        try await TemporaryPostgres.with { database, schema in
            try await TemporaryPostgres.secondNode { other in
                let nodes = [try await PostgresJobStore(database, schema: schema), try await PostgresJobStore(other, schema: schema)]
                for round in 0..<10 {
                    let outcomes = try await withThrowingTaskGroup(of: JobStartOutcome.self) { group in
                        for node in nodes {
                            group.addTask { try await self.start("round\(round)", on: node, maximumRunning: 1_000, exclusive: true).1 }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(outcomes.sorted { "\($0)" < "\($1)" } == [.alreadyRunning, .started], "round \(round)")
                }
            }
        }
    }
}
