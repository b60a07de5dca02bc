/// Every store of one app, built once when the app is served: its objects, the accounts beside
/// them, its work queue, job runs, push fan-out, file usage, hook log, config and class schemas. They share the app's one
/// database (in SQLite, `AppStores(SQLiteAppDatabase(path:))`), so a write that spans features (a
/// save with the after hook it queues, a sign-up with its session, a push job with its fan-out)
/// stays one transaction, made by the store the write belongs to.
public struct AppStores: Sendable {
    /// The app's objects.
    public var objects: any ObjectStorage
    /// Its users' credentials and sessions.
    public var accounts: any AccountStorage
    /// Its at-least-once work: after hooks, push deliveries and job runs.
    public var work: any WorkQueue
    /// Its job runs and schedules.
    public var jobs: any JobStorage
    /// Its push jobs' fan-out.
    public var push: any PushDeliveryStorage
    /// The bytes its stored files take.
    public var fileUsage: any FileUsageStorage
    /// Its hook log.
    public var hookRuns: any HookRunStorage
    /// Its config (`/config`).
    public var config: any GlobalConfigStorage
    /// Its classes' schemas, CLPs and indexes (`/schemas`).
    public var schemas: any SchemaStorage
    /// Its sessions as last read, with their users' roles: kept with the stores rather than one
    /// runtime, so a runtime rebuilt over them (new hook workers) shares it with the one it
    /// replaces, and a write still under way in the old one invalidates what the new one cached.
    package let sessionCache = SessionCache()
    /// What other nodes' writes to these stores make stale in this node's caches (its sessions,
    /// its class schemas): set where several nodes share the stores (PostgreSQL), nil where one
    /// process alone writes them (SQLite).
    package var changes: StoreChanges?
    /// The committed writes of the classes that publish live events (LiveQuery): published by the
    /// store that commits them (on PostgreSQL, by every node that hears of a commit).
    public var liveChanges = LiveObjectChanges()

    public init(
        objects: any ObjectStorage, accounts: any AccountStorage, work: any WorkQueue, jobs: any JobStorage,
        push: any PushDeliveryStorage, fileUsage: any FileUsageStorage, hookRuns: any HookRunStorage, config: any GlobalConfigStorage,
        schemas: any SchemaStorage
    ) {
        self.objects = objects
        self.accounts = accounts
        self.work = work
        self.jobs = jobs
        self.push = push
        self.fileUsage = fileUsage
        self.hookRuns = hookRuns
        self.config = config
        self.schemas = schemas
    }
}
