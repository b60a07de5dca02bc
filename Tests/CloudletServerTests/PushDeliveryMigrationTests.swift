import Cloudlet
import Foundation
import GRDB
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// A database made before push deliveries were queued work has what it still owed carried into the
/// work queue as it is opened: each pending delivery with its key, token, badge and attempts (one
/// a stopped run had claimed due at once, its cut-off attempt not counted), the fan-out of every
/// job not finished, and the pending count its jobs end by.
@Suite struct PushDeliveryMigrationTests {
    /// Databases as the releases before made them: before and after `push_deliveries_lean`.
    @Test(arguments: ["job_schedules", "work_queue"])
    func pendingDeliveriesAreCarriedIntoTheWorkQueue(madeUpTo lastMigration: String) async throws {
        let old = try await OldAppDatabase(madeUpTo: lastMigration) { db in
            try db.execute(
                sql: """
                    INSERT INTO objects (class, id, created_at, updated_at, data) VALUES
                        ('_PushStatus', 'job1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z',
                         '{"status":"running","source":"rest","query":"{}","payload":"{\\"alert\\":\\"Hi\\"}"}');
                    UPDATE push_jobs SET phase = 'running', expanded = 1, count = 3 WHERE job_id = 'job1';
                    INSERT INTO push_jobs (job_id, phase) VALUES ('done', 'finished');
                    INSERT INTO push_deliveries (job_id, installation_id, device_type, token, badge, key, state, attempts, due_at, lease_until) VALUES
                        ('job1', 'i1', 'ios', 'aa', 4, 'key-1', 'pending', 2, 300, NULL),
                        ('job1', 'i2', 'android', 'bb', NULL, 'key-2', 'pending', 1, 200, 200),
                        ('job1', 'i3', 'ios', 'cc', NULL, 'key-3', 'sent', 1, 100, NULL);
                    INSERT INTO push_job_counts (job_id, sent, device_type, reason, n) VALUES ('job1', 1, 'ios', '', 1);
                    """)
        }
        defer { old.remove() }
        let path = old.path
        let stores = AppStores(try SQLiteAppDatabase(path: path))
        #expect(try await stores.push.pushJobProgress("job1")?.pending == 2)
        let now = Date(timeIntervalSince1970: 150)
        let claimed = try await stores.work.claim([.pushDelivery], limit: 10, owner: "new", at: now, leasedUntil: now + 3_600)
        #expect(claimed.map(\.id).sorted() == ["push-job1-i2", PushDelivery.fanOutId(job: "job1")], "the claimed one is due at once")
        let cutOff = try #require(claimed.compactMap(PushDelivery.init).first)
        #expect(cutOff.key == "key-2" && cutOff.attempts == 1, "its cut-off attempt is not counted")
        let later = Date(timeIntervalSince1970: 300)
        let retried = try await stores.work.claim([.pushDelivery], limit: 10, owner: "new", at: later, leasedUntil: later + 30)
        #expect(retried.compactMap(PushDelivery.init) == [
            PushDelivery(
                id: "push-job1-i1", jobId: "job1", installationId: "i1", deviceType: "ios", token: "aa", pushType: nil, badge: 4, key: "key-1",
                attempts: 3)
        ])
        for delivery in (claimed + retried).compactMap(PushDelivery.init) {
            #expect(try await stores.push.recordPushResult(PushDeliveryResult(delivery, .sent), owner: "new", now: later))
        }
        let status = try #require(try await stores.objects.fetch("_PushStatus", id: "job1"))
        #expect(status["status"] == "succeeded")
        #expect(status["numSent"] == 3)
        #expect(status["sentPerType"] == ["ios": 2, "android": 1])
    }
}
