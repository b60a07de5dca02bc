import Cloudlet
import Foundation
import Logging
import Synchronization

/// What the parts of one app's runtime share: the app's id, its stores and files, where its hooks
/// run, its clock, limits and logs. Each part (``ObjectWrites``, ``ObjectReads``, ``UserAccounts``, ``UploadedFiles``,
/// ``BackgroundJobs``, …) is a value over this one object, so a part reaches another by making it, at no
/// allocation: a save checks its files with `UploadedFiles(app).checkExist(in:)`.
public final class AppContext: Sendable {
    /// The app's id.
    public let id: String
    /// The app's stores: objects, accounts, work queue, jobs, push, file usage, hook log and config.
    public let stores: AppStores
    /// Where the app's uploaded files are, if it stores files.
    public let fileStorage: (any FileStorage)?
    /// Where the app's hook code runs.
    public let executor: any HookExecutor
    /// The clock for timestamps and deadlines.
    public let clock: any CloudletClock
    /// How often each hook ran, failed and timed out.
    public let statistics = HookStatistics()
    /// The bounds on what one request may set off.
    let limits: AppRuntime.Limits
    /// How long a new session lasts: ``AppRuntime/Limits/sessionLifetime`` at first, then as the app's settings change it.
    private let newSessionLifetime: Mutex<Duration>
    /// Which `authData` providers the app accepts: ``AppRuntime/Limits/authProviders`` at first, then as its settings change them.
    private let acceptedAuthProviders: Mutex<AuthProviderSettings>
    /// Checks Apple's and Google's identity tokens; nil refuses both (252).
    let identityTokens: (any IdentityTokenVerifying)?
    /// Whether a client (not the master key) may reach a class that does not exist yet, creating
    /// it by its first save: ``AppRuntime/Limits/allowsClientClassCreation`` at first, then as the app's settings change it.
    private let clientClassCreation: Mutex<Bool>
    /// The fields only their owner and the master key may see.
    public let protectedFields: ProtectedFields
    /// The schemas of the app's classes (with their CLPs) as its reads and writes check them.
    public let schemas: ClassSchemaCache
    /// Failed logins per account and client address.
    public let loginThrottle: LoginThrottle
    /// The app's sessions as last resolved, with their users' roles: what a session token stands for.
    package var sessionCache: SessionCache { stores.sessionCache }
    /// Where the runtime's own messages go.
    let logger: Logger
    /// The app's hook log, which hooks write to through `request.logger`.
    let hookLogger: Logger
    /// Caps the app's hook invocations running and waiting at once.
    public let bulkhead: HookBulkhead
    /// The app's hook log: each run with its outcome and lines.
    package let hookRuns: HookRunLog?
    /// Where each hook run is counted by outcome and timed.
    package let metrics: CloudletMetrics?
    /// Where the rows the app's writes queue held (after hooks) go to be run by its work service.
    let heldWork: WorkHandoff
    /// The app's email policy and the bound on requests for email links.
    let email: EmailState

    /// The context of `appId`, as ``AppRuntime``'s initializer describes its parts; both loggers get
    /// the app's id as metadata.
    init(
        appId: String, stores: AppStores, fileStorage: (any FileStorage)?, executor: any HookExecutor, clock: any CloudletClock,
        limits: AppRuntime.Limits, protectedFields: ProtectedFields, logger: Logger, hookLogger: Logger, hookRuns: HookRunLog?,
        metrics: CloudletMetrics?, identityTokens: (any IdentityTokenVerifying)?
    ) {
        id = appId
        self.stores = stores
        self.fileStorage = fileStorage
        self.executor = executor
        self.clock = clock
        self.limits = limits
        newSessionLifetime = Mutex(limits.sessionLifetime)
        acceptedAuthProviders = Mutex(limits.authProviders)
        self.identityTokens = identityTokens
        clientClassCreation = Mutex(limits.allowsClientClassCreation)
        schemas = ClassSchemaCache(storage: stores.schemas, clock: clock)
        self.protectedFields = protectedFields
        loginThrottle = LoginThrottle(clock: clock)
        bulkhead = HookBulkhead(maximumRunning: limits.maximumConcurrentHooks, maximumWaiting: limits.maximumQueuedHooks)
        self.hookRuns = hookRuns
        self.metrics = metrics
        heldWork = WorkHandoff()
        var logger = logger
        logger[metadataKey: "app"] = .string(appId)
        self.logger = logger
        email = EmailState(policy: EmailPolicy(sender: LogEmailSender(logger: logger)), clock: clock)
        var hookLogger = hookLogger
        hookLogger[metadataKey: "app"] = .string(appId)
        self.hookLogger = hookLogger
        stores.changes?.subscribe(self) { app, change in app.forget(change) }
    }

    /// How long a session made now lasts; setting it changes the sessions made from then on.
    package var sessionLifetime: Duration {
        get { newSessionLifetime.withLock { $0 } }
        set { newSessionLifetime.withLock { $0 = newValue } }
    }

    /// Which `authData` providers the app accepts; setting it applies to the requests that begin after.
    package var authProviders: AuthProviderSettings {
        get { acceptedAuthProviders.withLock { $0 } }
        set { acceptedAuthProviders.withLock { $0 = newValue } }
    }

    /// Whether clients may create classes; setting it applies from the next request on.
    package var allowsClientClassCreation: Bool {
        get { clientClassCreation.withLock { $0 } }
        set { clientClassCreation.withLock { $0 = newValue } }
    }

    /// A budget for one request, with the app's limit.
    package func newBudget() -> ReadBudget {
        ReadBudget(maximumBytes: limits.maximumResponseBytes)
    }
}
