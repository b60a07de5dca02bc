import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Logging
import Synchronization
import Testing

/// A provider that records every message it is given and answers as `answer` says.
final class RecordingProvider: PushProvider {
    private struct Record {
        var messages: [PushMessage] = []
        var attempts: [String: Int] = [:]
    }

    private let record = Mutex(Record())
    private let answer: @Sendable (PushMessage, Int) async -> PushOutcome

    /// `answer` gets the message and how many times a message of this delivery was sent before.
    init(answer: @escaping @Sendable (PushMessage, Int) async -> PushOutcome = { _, _ in .sent }) {
        self.answer = answer
    }

    func send(_ message: PushMessage) async -> PushOutcome {
        let earlier = record.withLock { record in
            record.messages.append(message)
            defer { record.attempts[message.id, default: 0] += 1 }
            return record.attempts[message.id, default: 0]
        }
        return await answer(message, earlier)
    }

    var sent: [PushMessage] { record.withLock { $0.messages } }
}

/// One app's database in a fresh folder, with installations and jobs written straight to it.
struct DeliveryFixture {
    let stores: AppStores
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        stores = AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path))
    }

    /// The same database opened again, as a restarted server would.
    func reopened() throws -> AppStores {
        AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("app.sqlite").path))
    }

    /// Installations `i00000`… with tokens `t00000`…, `ios` for even numbers and `android` for odd ones.
    func addInstallations(_ count: Int, start: Int = 0, fields: [String: ParseValue] = [:], updatedAt: Date = Date()) async throws {
        for n in start..<(start + count) {
            try await addInstallation(
                String(format: "i%05d", n), token: String(format: "t%05d", n), deviceType: n.isMultiple(of: 2) ? "ios" : "android",
                fields: fields, updatedAt: updatedAt)
        }
    }

    func addInstallation(
        _ id: String, token: String?, deviceType: String = "ios", fields: [String: ParseValue] = [:], updatedAt: Date = Date()
    ) async throws {
        var all = fields
        all["deviceType"] = .string(deviceType)
        all["installationId"] = .string(UUID().uuidString)
        if let token { all["deviceToken"] = .string(token) }
        try await stores.objects.insert(
            ParseObject(className: "_Installation", objectId: id, createdAt: updatedAt, updatedAt: updatedAt, fields: all), outbox: nil)
    }

    /// Records a job to every installation (or those matching `query`), as `POST /push` does.
    @discardableResult
    func recordJob(
        _ id: String = "job1", query: [String: ParseValue] = [:], data: [String: ParseValue] = ["alert": "Hello"], pushTime: Date? = nil,
        expiration: Date? = nil
    ) async throws -> String {
        let job = PushJob(
            id: id, status: pushTime == nil ? .pending : .scheduled, source: "rest", query: query, data: data, pushTime: pushTime,
            expiration: expiration)
        try await stores.objects.insert(
            ParseObject(className: "_PushStatus", objectId: id, createdAt: Date(), updatedAt: Date(), acl: ParseACL(), fields: job.fields),
            outbox: nil)
        return id
    }

    /// The job's `_PushStatus` fields.
    func status(_ id: String = "job1") async throws -> [String: ParseValue] {
        try #require(try await stores.objects.fetch("_PushStatus", id: id)).fields
    }

    func installation(_ id: String) async throws -> ParseObject {
        try #require(try await stores.objects.fetch("_Installation", id: id))
    }
}

/// One app as a test serves it: its database and where its notifications go.
struct PushDeliveryApp {
    var id: String
    var stores: AppStores
    var providers: PushProviders

    /// App `id` on `fixture`'s database, every device type going to `provider`.
    static func serving(_ fixture: DeliveryFixture, _ provider: (any PushProvider)?, id: String = "app") -> PushDeliveryApp {
        PushDeliveryApp(id: id, stores: fixture.stores, providers: PushProviders(fallback: provider))
    }
}

/// The server's work service (``WorkService``: one work loop per app) over these apps, running in
/// a task until stopped.
struct RunningDelivery {
    let task: Task<Void, Never>

    init(
        _ apps: [PushDeliveryApp], configuration: PushDeliveryConfiguration = .fast, work: WorkSettings = .fast,
        clock: any CloudletClock = SystemClock()
    ) {
        var logger = Logger(label: "test.push")
        logger.logLevel = .critical
        let hosted = apps.map { app in
            let runtime = AppRuntime(
                appId: app.id, stores: app.stores, executor: InProcessHookExecutor(registry: HookRegistry()), clock: clock, logger: logger,
                hookLogger: logger)
            return HostedApp(
                id: app.id, keys: AppKeys(clientKeys: [], masterKeyHashes: []), runtime: runtime,
                rateLimiter: RateLimiter(policy: RateLimitPolicy(), clock: clock), pushProviders: app.providers)
        }
        let service = WorkService(apps: AppDirectory(hosted), settings: work, push: configuration)
        task = Task { await service.run() }
    }

    /// Stops the loops and waits for them: sends in flight are cut off, and the rows not yet ended
    /// stay leased, as after a crash.
    func stop() async {
        task.cancel()
        await task.value
    }
}

extension PushDeliveryConfiguration {
    /// Short polls, for tests.
    static let fast = PushDeliveryConfiguration(pollInterval: .milliseconds(10))
}

extension WorkSettings {
    /// Short leases, so that what a stopped loop held is claimed again soon after, and short looks
    /// for writes by other processes.
    static let fast = WorkSettings(lease: .seconds(1), outsideWriteInterval: .milliseconds(100))
}

/// Waits (in real time, up to `timeout`) until `condition` holds; fails the test if it never does.
func eventually(
    _ what: String, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let end = ContinuousClock.now + timeout
    while ContinuousClock.now < end {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
}

/// Waits until job `id` has a final status and returns its fields.
func finished(_ fixture: DeliveryFixture, _ id: String = "job1", timeout: Duration = .seconds(60)) async throws -> [String: ParseValue] {
    try await eventually("job \(id) finishes", timeout: timeout) {
        let status = try await fixture.status(id)["status"]?.stringValue
        return ["succeeded", "failed", "expired"].contains(status)
    }
    return try await fixture.status(id)
}
