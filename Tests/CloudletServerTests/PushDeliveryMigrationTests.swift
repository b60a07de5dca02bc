import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// A database made before `push_deliveries_lean` keeps its deliveries through it: their keys,
/// states and leases, and the pending count its jobs are finished by.
@Suite struct PushDeliveryMigrationTests {
    @Test func deliveriesWrittenBeforeTheRebuildAreClaimedWithTheirKeysAfterIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-push-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app.sqlite").path
        do {
            // As Cloudlet's own databases do: SQLite starts with the process's settings, whichever test opens a database first.
            SQLiteProcessSettings.apply()
            let old = try DatabaseQueue(path: path)
            try SQLiteObjectStorage.migrator.migrate(old, upTo: "job_schedules")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO push_jobs (job_id, phase, expanded, count) VALUES ('job1', 'running', 1, 3);
                        INSERT INTO push_deliveries (job_id, installation_id, device_type, token, key, state, due_at, lease_until) VALUES
                            ('job1', 'i1', 'ios', 'aa', 'key-1', 'pending', 100, NULL),
                            ('job1', 'i2', 'ios', 'bb', 'key-2', 'pending', 200, 200),
                            ('job1', 'i3', 'ios', 'cc', 'key-3', 'sent', 100, NULL);
                        INSERT INTO push_job_counts (job_id, sent, device_type, reason, n) VALUES ('job1', 1, 'ios', '', 1);
                        """)
            }
            try old.close()
        }
        let storage = try SQLiteObjectStorage(path: path)
        let progress = try #require(try await storage.runningPushJobs(limit: 10).first)
        #expect(progress.jobId == "job1" && progress.pending == 2 && progress.isExpanded)
        // The claim a stopped run left is due again at start; the sent delivery stays sent.
        try await storage.releasePushLeases(now: Date(timeIntervalSince1970: 150))
        let claimed = try await storage.claimPushDeliveries(
            now: Date(timeIntervalSince1970: 150), leaseUntil: Date(timeIntervalSince1970: 180), limit: 10).deliveries
        #expect(Set(claimed.map(\.key)) == ["key-1", "key-2"])
        try await storage.recordPushResults(claimed.map { PushDeliveryResult($0, .sent) }, now: Date(timeIntervalSince1970: 160))
        #expect(try await storage.runningPushJobs(limit: 10).first?.pending == 0)
    }
}
