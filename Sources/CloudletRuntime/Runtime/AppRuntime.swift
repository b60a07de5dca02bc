import Cloudlet
import Foundation
import Logging

/// One app's request path, in parts: ``writes``, ``reads``, ``aggregates``, ``accounts``, ``sessions``, ``files``, ``jobs``,
/// ``functions`` and ``schemas`` (installations save through ``writes``). Each part validates, checks access, runs
/// the hooks under their time limits and stores, queueing after hooks with the writes; all share
/// the app's ``context``. The HTTP routes, the hooks' store and the test harness
/// all go through them:
///
/// ```swift
/// let saved = try await runtime.writes.create("Post", body: ["title": "hello"], caller: caller)
/// let posts = try await runtime.reads.find(ParseQuery("Post"), caller: caller)
/// ```
public final class AppRuntime: Sendable {
    /// Limits that bound what one request may set off.
    public struct Limits: Sendable {
        /// How deep hooks may call the store that fires further hooks.
        public var maximumHookDepth: Int
        /// How long a login session lasts at first (Parse's default: one year); see ``AppContext/sessionLifetime``.
        public var sessionLifetime: Duration
        /// How passwords are hashed.
        public var passwordHasher: any PasswordHashing
        /// The most hook invocations of client requests that run at once (see ``HookBulkhead``).
        public var maximumConcurrentHooks: Int
        /// The most that wait for a slot; past them, 503.
        public var maximumQueuedHooks: Int
        /// The most bytes one request (or one store call of a hook) may read and answer; see ``ReadBudget``.
        public var maximumResponseBytes: Int
        /// The most background jobs of the app that run at once; past them, starting one answers 503/155.
        public var maximumRunningJobs: Int
        /// The free space uploads leave on the disk of the app's files; nil for none.
        public var freeDiskFloor: FreeDiskFloor?
        /// Which `authData` providers the app accepts at first; see ``AppContext/authProviders``.
        public var authProviders: AuthProviderSettings
        /// Whether clients may create classes by saving to them (Parse Server's `allowClientClassCreation`); see ``AppContext/allowsClientClassCreation``.
        public var allowsClientClassCreation: Bool

        /// Limits with Cloudlet's defaults.
        public init(
            maximumHookDepth: Int = 8, sessionLifetime: Duration = .seconds(365 * 86_400), passwordHasher: any PasswordHashing = PasswordHasher(),
            maximumConcurrentHooks: Int = 32, maximumQueuedHooks: Int = 256, maximumResponseBytes: Int = ReadBudget.defaultMaximumBytes,
            maximumRunningJobs: Int = 4, freeDiskFloor: FreeDiskFloor? = nil, authProviders: AuthProviderSettings = AuthProviderSettings(),
            allowsClientClassCreation: Bool = true
        ) {
            self.allowsClientClassCreation = allowsClientClassCreation
            self.freeDiskFloor = freeDiskFloor
            self.authProviders = authProviders
            self.maximumHookDepth = maximumHookDepth
            self.sessionLifetime = sessionLifetime
            self.passwordHasher = passwordHasher
            self.maximumConcurrentHooks = maximumConcurrentHooks
            self.maximumQueuedHooks = maximumQueuedHooks
            self.maximumResponseBytes = maximumResponseBytes
            self.maximumRunningJobs = maximumRunningJobs
        }
    }

    /// What the parts share: the app's id, stores, files, hook executor, clock, limits and logs.
    public let context: AppContext
    /// Creates, updates and deletes objects, each with its hooks.
    public let writes: ObjectWrites
    /// Gets, finds and counts objects as a caller may see them.
    public let reads: ObjectReads
    /// Distinct values and aggregation pipelines, for the master key.
    public let aggregates: ObjectAggregates
    /// Sign-ups, logins, logouts and sessions.
    public let accounts: UserAccounts
    /// `_Session` objects: each user's own, all for the master key.
    public let sessions: UserSessions
    /// Password-reset and verification emails and their links.
    public let emails: UserEmails
    /// Uploaded files: stores, serves and deletes them.
    public let files: UploadedFiles
    /// Background jobs: starts runs and runs them.
    public let jobs: BackgroundJobs
    /// Cloud functions.
    public let functions: CloudFunctions
    /// Runs one hook by itself, as `cloudlet invoke` does.
    public let invoker: HookInvoker
    /// The app's config.
    public let config: AppConfig
    /// Class schemas and CLPs (`/schemas`) and purges, for the master key.
    public let schemas: ClassSchemas

    /// A runtime for `appId`, hiding `protectedFields` from readers other than their owner.
    /// `logger` receives the runtime's own messages; `hookLogger` is the app's hook log, which hooks
    /// write to through `request.logger`. Each hook run is kept in `hookRuns` and counted in
    /// `metrics`, when given. Uploaded files go to `files`; without it the app takes no uploads.
    /// Apple's and Google's identity tokens are checked by `identityTokens`; without it, both are refused.
    public init(
        appId: String, stores: AppStores, files: (any FileStorage)? = nil, executor: any HookExecutor, clock: any CloudletClock,
        limits: Limits = Limits(), protectedFields: ProtectedFields = .standard, logger: Logger, hookLogger: Logger,
        hookRuns: HookRunLog? = nil, metrics: CloudletMetrics? = nil, identityTokens: (any IdentityTokenVerifying)? = nil
    ) {
        let app = AppContext(
            appId: appId, stores: stores, fileStorage: files, executor: executor, clock: clock, limits: limits,
            protectedFields: protectedFields, logger: logger, hookLogger: hookLogger, hookRuns: hookRuns, metrics: metrics,
            identityTokens: identityTokens)
        context = app
        writes = ObjectWrites(app)
        reads = ObjectReads(app)
        aggregates = ObjectAggregates(app)
        accounts = UserAccounts(app)
        sessions = UserSessions(app)
        emails = UserEmails(app)
        self.files = UploadedFiles(app)
        jobs = BackgroundJobs(app)
        functions = CloudFunctions(app)
        invoker = HookInvoker(app)
        config = AppConfig(app)
        schemas = ClassSchemas(app)
    }
}
