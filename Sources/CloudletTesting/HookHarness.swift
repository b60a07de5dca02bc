import Cloudlet
import CloudletRuntime
import CloudletSQLite
import Foundation

/// Runs a ``HookModule`` in-process, with no HTTP and no server: a throwaway SQLite store, a manual
/// clock, captured logs, and counts of which hooks ran. Saves go through the same path as on the
/// server (before hook, transaction with the after hook queued, after hook) and fail with the same errors.
///
/// ```swift
/// @Test func titleIsTrimmed() async throws {
///     let harness = try HookHarness(AppHooks.self)
///     let post = try await harness.create("Posts", ["title": "  Hi  "])
///     #expect(post["title"] == "Hi")
///     #expect(harness.counts(.beforeSave, "Posts").invocations == 1)
/// }
/// ```
public final class HookHarness: Sendable {
    /// Who a harness call acts as.
    public enum Actor: Sendable, Hashable {
        /// The master key: no ACL applies.
        case master
        /// A client with the client key and no user.
        case anonymous
        /// A client logged in as the user with this id.
        case user(String)
    }

    /// The clock hooks and deadlines run on; move it with ``ManualClock/advance(by:)``.
    public let clock: ManualClock
    /// Everything the hooks and the runtime logged.
    public let logs: CapturedLogs
    /// The emails the app sent: see ``emails(count:timeout:)``.
    public let sentEmails = CapturedEmails()
    /// The runtime behind the harness, for what the convenience calls do not cover.
    public let runtime: AppRuntime
    private let folder: URL
    /// The app's work loop (after hooks, job runs), as a server runs it; it ends with the harness.
    private let work: Task<Void, Never>
    /// The app's LiveQuery subscriptions (``subscribe(_:where:keys:watch:sessionToken:master:)``),
    /// whose loop decides the events of its writes while the harness lives.
    let liveQueryHub: LiveQueryHub
    private let liveQueryLoop: Task<Void, Never>

    /// A harness for the hooks of `module`.
    public convenience init<Module: HookModule>(_ module: Module.Type, clock: ManualClock = ManualClock()) throws {
        try self.init(registry: Module.registry(), clock: clock)
    }

    /// A harness for the hooks in `registry`.
    public convenience init(registry: HookRegistry, clock: ManualClock = ManualClock()) throws {
        try self.init(executor: InProcessHookExecutor(registry: registry), clock: clock, logs: CapturedLogs())
    }

    /// A harness whose hooks run through `executor`, logging into `logs`.
    init(executor: any HookExecutor, clock: ManualClock, logs: CapturedLogs) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.clock = clock
        self.logs = logs
        runtime = AppRuntime(
            appId: "test", stores: AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("test.sqlite").path)),
            files: try LocalFileStorage(folder: folder.appendingPathComponent("files").path), executor: executor, clock: clock,
            logger: logs.logger(label: "cloudlet"), hookLogger: logs.logger(label: "cloudlet.hooks"))
        runtime.context.emailPolicy = EmailPolicy(sender: sentEmails)
        // Pushes the hooks record stay recorded, for the test to read; job runs run.
        var settings = WorkSettings()
        settings.kinds.remove(.pushDelivery)
        let service = AppWorkService(runtime: runtime, settings: settings)
        service.takeHandedWork()
        work = Task { await service.run() }
        let context = runtime.context
        let hub = LiveQueryHub(
            appId: "test", feed: context.stores.liveChanges, app: { context }, metrics: nil, logger: logs.logger(label: "cloudlet.livequery"))
        liveQueryHub = hub
        liveQueryLoop = Task { await hub.run() }
    }

    deinit {
        work.cancel()
        liveQueryHub.stop()
        liveQueryLoop.cancel()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Creates an object of `className` with `fields` (which may hold an `ACL` and field operations).
    @discardableResult
    public func create(_ className: String, _ fields: [String: ParseValue], as actor: Actor = .master) async throws -> ParseObject {
        try await runtime.writes.create(className, body: fields, caller: caller(actor)).object
    }

    /// Updates the object `id` of `className` with `fields`.
    @discardableResult
    public func update(_ className: String, id: String, _ fields: [String: ParseValue], as actor: Actor = .master) async throws -> ParseObject {
        try await runtime.writes.update(className, id: id, body: fields, caller: caller(actor)).object
    }

    /// The object `id` of `className`, as `actor` may see it (nil if it may not, or there is none).
    public func get(_ className: String, id: String, as actor: Actor = .master) async throws -> ParseObject? {
        do {
            return try await runtime.reads.get(className, id: id, caller: caller(actor))
        } catch let error as ParseError where error.code == 101 {
            return nil
        }
    }

    /// The objects matching `query` that `actor` may read.
    public func find(_ query: ParseQuery, as actor: Actor = .master) async throws -> [ParseObject] {
        try await runtime.reads.find(query, caller: caller(actor))
    }

    /// How many objects match `query` among those `actor` may read.
    public func count(_ query: ParseQuery, as actor: Actor = .master) async throws -> Int {
        try await runtime.reads.count(query, caller: caller(actor))
    }

    /// Deletes the object `id` of `className`.
    public func delete(_ className: String, id: String, as actor: Actor = .master) async throws {
        try await runtime.writes.delete(className, id: id, caller: caller(actor))
    }

    /// Calls the function `name` with `params` and returns its result.
    public func call(_ name: String, _ params: [String: ParseValue] = [:], as actor: Actor = .master) async throws -> ParseValue {
        try await runtime.functions.call(name, params: params, caller: caller(actor))
    }

    /// How often the hook of `kind` for `name` ran, failed and timed out.
    public func counts(_ kind: HookKind, _ name: String) -> HookStatistics.Counts {
        runtime.context.statistics.counts(kind, name)
    }

    /// Waits (in real time, up to `timeout`) until the hook of `kind` for `name` has started `count`
    /// times — for a test that must move the clock while a hook is running.
    public func waitForInvocations(_ kind: HookKind, _ name: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        let giveUp = ContinuousClock.now + timeout
        while counts(kind, name).invocations < count {
            guard ContinuousClock.now < giveUp else {
                throw ParseError.failed("\(kind.rawValue) \(name) did not start \(count) times within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The caller `actor` stands for; a user's roles resolved as a request's are (``UserRoles``).
    func caller(_ actor: Actor) async throws -> Caller {
        switch actor {
        case .master: Caller(isMaster: true, requestId: "harness")
        case .anonymous: Caller(isMaster: false, requestId: "harness")
        case .user(let id): Caller(userId: id, roles: try await UserRoles(runtime.context).names(ofUser: id), isMaster: false, requestId: "harness")
        }
    }
}
