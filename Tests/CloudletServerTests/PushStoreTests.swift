import Cloudlet
import CloudletRuntime
import Foundation
import Testing

/// A push job's fan-out on each store: pages of recipients queued as one delivery each, outcomes
/// counted on the job's `_PushStatus` in the transaction that ends each delivery, and the job ended
/// by its last one; two nodes expanding and recording the same job at once queue and count each
/// delivery once.
@Suite struct PushStoreTests {
    typealias App = (push: any PushDeliveryStorage, work: any WorkQueue, objects: TestObjects)

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// An installation `id`, with `token` as its `deviceToken` unless nil.
    static func installation(_ id: String, token: ParseValue?, deviceType: String = "ios", fields: [String: ParseValue] = [:]) -> ParseObject {
        var all = fields
        all["deviceType"] = .string(deviceType)
        all["installationId"] = .string("install-" + id)
        if let token { all["deviceToken"] = token }
        return ParseObject(className: "_Installation", objectId: id, createdAt: now, updatedAt: now, fields: all)
    }

    /// Stores `count` installations `i00`… with tokens `t00`…, `ios` for even numbers and `android`
    /// for odd ones, and the job `job` to all of them.
    static func seed(_ app: App, installations count: Int, fields: [String: ParseValue] = [:], job: String = "job1") async throws {
        for n in 0..<count {
            let id = String(format: "i%02d", n)
            try await app.objects.insert(
                installation(id, token: .string(String(format: "t%02d", n)), deviceType: n.isMultiple(of: 2) ? "ios" : "android", fields: fields))
        }
        try await recordJob(app, job)
    }

    /// Records job `id` as `POST /push` does.
    static func recordJob(_ app: App, _ id: String = "job1") async throws {
        let job = PushJob(id: id, status: .pending, source: "rest", query: [:], data: ["alert": "Hello"], pushTime: nil, expiration: nil)
        try await app.objects.insert(ParseObject(className: "_PushStatus", objectId: id, createdAt: now, updatedAt: now, acl: ParseACL(), fields: job.fields))
    }

    /// Queues every recipient of job `id` as the fan-out does, page by page.
    static func expand(_ app: App, _ id: String = "job1", pageSize: Int, badgeIncrement: Int? = nil) async throws {
        var cursor: String?
        while true {
            let query = PushRecipients.pageQuery([:], after: cursor, limit: pageSize)
            let page = try await app.push.pushRecipients(query)
            let isLast = page.count < query.limit
            cursor = page.last?.installationId ?? cursor
            try await app.push.expandPushJob(id, recipients: page, cursor: cursor, isLast: isLast, badgeIncrement: badgeIncrement, now: now)
            if isLast { return }
        }
    }

    /// The deliveries `owner` claims from `app`'s queue (fan-outs left queued).
    static func claim(_ app: App, owner: String, limit: Int = 1_000) async throws -> [PushDelivery] {
        try await app.work.claim([.pushDelivery], limit: limit, owner: owner, at: now, leasedUntil: now + 600).compactMap(PushDelivery.init)
    }

    static func status(_ app: App, _ id: String = "job1") async throws -> [String: ParseValue] {
        try #require(try await app.objects.fetch("_PushStatus", id)).fields
    }

    @Test(arguments: TestStore.allCases)
    func aJobsRecipientsAreQueuedPageByPageAndTheirOutcomesCountOnItsStatus(_ store: TestStore) async throws {
        try await store.with({ $0.push }) { app, _ in
            try await Self.seed(app, installations: 5)
            try await app.objects.insert(Self.installation("i05", token: nil))
            #expect(try await app.push.pushJobProgress("job1") == PushJobProgress(jobId: "job1", cursor: nil, isExpanded: false, isFinished: false, pending: 0))
            let fanOut = try await app.work.claim([.pushDelivery], limit: 10, owner: "n", at: Self.now, leasedUntil: Self.now + 60)
            #expect(fanOut.map(\.id) == [PushDelivery.fanOutId(job: "job1")], "recording the job queued its fan-out")

            try await app.push.startPushJob("job1", now: Self.now)
            #expect(try await Self.status(app)["status"] == "running")
            try await Self.expand(app, pageSize: 3)
            #expect(try await app.push.pushJobProgress("job1") == PushJobProgress(jobId: "job1", cursor: "i04", isExpanded: true, isFinished: false, pending: 5))
            let deliveries = try await Self.claim(app, owner: "n").sorted { $0.installationId < $1.installationId }
            #expect(deliveries.map(\.installationId) == ["i00", "i01", "i02", "i03", "i04"], "none without a token")
            #expect(deliveries.map(\.token) == ["t00", "t01", "t02", "t03", "t04"])
            #expect(Set(deliveries.map(\.key)).count == 5)

            let resolutions: [PushDeliveryResolution] = [
                .sent, .sent, .invalidToken(reason: "Unregistered", unregisteredAt: Self.now - 60),
                .invalidToken(reason: "Unregistered", unregisteredAt: nil), .expired,
            ]
            for (delivery, resolution) in zip(deliveries, resolutions) {
                #expect(try await app.push.recordPushResult(PushDeliveryResult(delivery, resolution), owner: "n", now: Self.now))
                if delivery.installationId == "i01" { #expect(try await Self.status(app)["numSent"] == 2) }
            }
            #expect(try await !app.push.recordPushResult(PushDeliveryResult(deliveries[0], .sent), owner: "n", now: Self.now), "recorded once")
            let status = try await Self.status(app)
            #expect(status["status"] == "succeeded")
            #expect(status["count"] == 5 && status["numSent"] == 2 && status["numFailed"] == 3)
            #expect(status["sentPerType"] == ["ios": 1, "android": 1])
            #expect(status["failedPerReason"] == ["Unregistered": 2, PushJobCounts.expiredReason: 1])
            #expect(try await app.objects.fetch("_Installation", "i03")?["deviceToken"] == nil, "an invalid token is unset")
            #expect(try await app.objects.fetch("_Installation", "i02")?["deviceToken"] == "t02", "unless registered again since")
            #expect(try await app.push.pushJobProgress("job1")?.isFinished == true)
        }
    }

    @Test(arguments: TestStore.allCases)
    func twoNodesExpandingAndRecordingOneJobAtOnceQueueAndCountEachDeliveryOnce(_ store: TestStore) async throws {
        try await store.with({ $0.push }) { app, reopen in
            // SQLite serves an app from one process: its second node is the same database handle.
            let other = store == .postgres ? try await reopen() : app
            try await Self.seed(app, installations: 40)
            try await app.push.startPushJob("job1", now: Self.now)
            async let expanded: Void = Self.expand(app, pageSize: 7)
            async let expandedElsewhere: Void = Self.expand(other, pageSize: 5)
            _ = try await (expanded, expandedElsewhere)
            #expect(try await other.push.pushJobProgress("job1")?.pending == 40)
            #expect(try await Self.status(app)["count"] == 40)

            // Each node claims and records what it can until nothing is left.
            func drain(_ node: App, _ owner: String) async throws -> [String] {
                var recorded: [String] = []
                while case let claimed = try await Self.claim(node, owner: owner, limit: 3), !claimed.isEmpty {
                    for delivery in claimed {
                        if try await node.push.recordPushResult(PushDeliveryResult(delivery, .sent), owner: owner, now: Self.now) {
                            recorded.append(delivery.installationId)
                        }
                    }
                }
                return recorded
            }
            async let first = drain(app, "a")
            async let second = drain(other, "b")
            let recorded = try await first + second
            #expect(recorded.count == 40 && Set(recorded).count == 40, "each delivery sent and recorded once")
            let status = try await Self.status(other)
            #expect(status["status"] == "succeeded")
            #expect(status["numSent"] == 40 && status["count"] == 40 && status["numFailed"] == 0)
            #expect(status["sentPerType"] == ["ios": 20, "android": 20])
        }
    }

    @Test(arguments: TestStore.allCases)
    func aDeliveryTakenOverAfterItsLeaseRanOutIsRecordedByItsNewHolderOnly(_ store: TestStore) async throws {
        try await store.with({ $0.push }) { app, reopen in
            let other = store == .postgres ? try await reopen() : app
            try await Self.seed(app, installations: 1)
            try await app.push.startPushJob("job1", now: Self.now)
            try await Self.expand(app, pageSize: 10)
            let first = try await app.work.claim([.pushDelivery], limit: 10, owner: "a", at: Self.now, leasedUntil: Self.now + 1).compactMap(PushDelivery.init)
            let later = Self.now + 2
            let taken = try await other.work.claim([.pushDelivery], limit: 10, owner: "b", at: later, leasedUntil: later + 60).compactMap(PushDelivery.init)
            #expect(taken.map(\.id) == first.map(\.id) && taken.count == 1)
            #expect(try await !app.push.recordPushResult(PushDeliveryResult(first[0], .sent), owner: "a", now: later), "its lease ran out")
            #expect(try await other.push.recordPushResult(PushDeliveryResult(taken[0], .sent), owner: "b", now: later))
            let status = try await Self.status(app)
            #expect(status["status"] == "succeeded" && status["numSent"] == 1)
        }
    }

    @Test(arguments: TestStore.allCases)
    func anIncrementedBadgeIsRaisedOncePerDeliveryAndCarriedByIt(_ store: TestStore) async throws {
        try await store.with({ $0.push }) { app, _ in
            try await app.objects.insert(Self.installation("a", token: "ta", fields: ["badge": 3]))
            try await app.objects.insert(Self.installation("b", token: "tb"))
            try await Self.recordJob(app)
            try await app.push.startPushJob("job1", now: Self.now)
            try await Self.expand(app, pageSize: 10, badgeIncrement: 2)
            try await Self.expand(app, pageSize: 10, badgeIncrement: 2)
            let badges = Dictionary(uniqueKeysWithValues: try await Self.claim(app, owner: "n").map { ($0.installationId, $0.badge) })
            #expect(badges == ["a": 5, "b": 2])
            #expect(try await app.objects.fetch("_Installation", "a")?["badge"] == 5, "a page queued again raises no badge")
            #expect(try await app.objects.fetch("_Installation", "b")?["badge"] == 2)
        }
    }

    @Test(arguments: TestStore.allCases)
    func aFailedJobEndsItsQueuedDeliveriesAndTheirSendsRecordNothing(_ store: TestStore) async throws {
        try await store.with({ $0.push }) { app, _ in
            try await Self.seed(app, installations: 4)
            try await app.push.startPushJob("job1", now: Self.now)
            try await Self.expand(app, pageSize: 10)
            let claimed = try await Self.claim(app, owner: "n")
            try await app.push.finishPushJob("job1", .failed(reason: "the provider refused the job"), now: Self.now)
            #expect(try await !app.push.recordPushResult(PushDeliveryResult(claimed[0], .sent), owner: "n", now: Self.now))
            #expect(try await Self.claim(app, owner: "n").isEmpty, "no delivery left queued")
            let status = try await Self.status(app)
            #expect(status["status"] == "failed" && status["errorMessage"] == "the provider refused the job")
            #expect(status["numFailed"] == 4 && status["failedPerType"] == ["ios": 2, "android": 2], "the claimed one counted once")
        }
    }

    @Test(arguments: TestStore.allCases)
    func recipientsAreTheInstallationsTheQueryMatchesInIdOrder(_ store: TestStore) async throws {
        try await store.with({ $0.push }) { app, _ in
            try await app.objects.insert(Self.installation("c", token: "tc", deviceType: "android", fields: ["channels": ["news"], "pushType": "alert"]))
            try await app.objects.insert(Self.installation("a", token: "ta", fields: ["channels": ["news", "sport"]]))
            try await app.objects.insert(Self.installation("b", token: "tb", fields: ["channels": ["sport"]]))
            let news = try await app.push.pushRecipients(PushRecipients.pageQuery(["channels": ["$in": ["news"]]], after: nil))
            #expect(news == [
                PushRecipient(installationId: "a", deviceType: "ios", token: "ta", pushType: nil),
                PushRecipient(installationId: "c", deviceType: "android", token: "tc", pushType: "alert"),
            ])
            #expect(try await app.push.pushRecipients(PushRecipients.pageQuery([:], after: "a", limit: 1)).map(\.installationId) == ["b"])
            await #expect(throws: ParseError.invalidQuery("unsupported query operator $near")) {
                try await app.push.pushRecipients(PushRecipients.pageQuery(["deviceType": ["$near": 1]], after: nil))
            }
        }
    }
}
