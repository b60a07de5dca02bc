import Cloudlet
import CloudletRuntime
import CloudletWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The worker processes of one app: started from the app's hook executable by the pool's ``run()``,
/// each connected over one end of a Unix-domain socket pair that it gets as standard input,
/// supervised (startup, health checks, deadlines), restarted with backoff when they end, and fed
/// invocations from a bounded queue.
///
/// ```swift
/// let pool = try await WorkerPool.launch(WorkerPoolConfiguration(appId: "dev", executablePath: "/usr/bin/cloudlet"), logger: logger)
/// let app = AppDefinition(id: "dev", executor: ProcessHookExecutor(pool: pool), services: [pool])
/// ```
/// ``launch(_:logger:hookLogger:clock:metrics:)`` runs one worker until it has said which hooks it
/// serves, and stops it; ``run()`` (as a `Service`) starts the workers, each in a child task of its
/// own that reads its output, and serves the store calls their hooks make in child tasks too. It
/// supervises them until graceful shutdown, then stops them (SIGTERM, and SIGKILL after
/// ``WorkerPoolConfiguration/stopGrace``) and waits for the store calls in flight. Cancelling
/// ``run()`` tears the workers down the same way and cancels those calls: no worker and no store
/// call outlives it. Calls made before the workers are up wait for them.
public final class WorkerPool: Service, Sendable {
    /// The pool's configuration.
    public let configuration: WorkerPoolConfiguration
    let logger: Logger
    let hookLogger: Logger
    let clock: any CloudletClock
    let metrics: CloudletMetrics?
    let state: Mutex<WorkerPoolState>
    /// Keeps the workers' CPU below the host's and in the app's own share.
    let cpuShare: WorkerCPUShare
    /// What of the workers' output reaches the hook log.
    let outputRelay: WorkerOutputRelay
    /// Starts workers in memory instead of as processes (for tests).
    let connector: WorkerConnector?
    /// The worker processes to start, which ``run()`` starts in its task group.
    let starts = AsyncStream.makeStream(of: WorkerStart.self)
    /// The store calls from the workers' hooks, which ``run()`` serves in its task group.
    let storeCalls = AsyncStream.makeStream(of: StoreCallRequest.self)
    /// Wakes the supervisor when it rests (``WorkerPoolState/wakeSupervisor()``).
    let supervisorWake = WakeSignal()
    /// The real clock the supervisor sleeps on between ticks; decisions read ``clock``, which a
    /// test may move by hand.
    private let supervisionClock = SystemClock()

    init(
        configuration: WorkerPoolConfiguration, logger: Logger, hookLogger: Logger, clock: any CloudletClock, metrics: CloudletMetrics?,
        connector: WorkerConnector? = nil
    ) {
        self.configuration = configuration
        self.connector = connector
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "app"] = .string(configuration.appId)
        self.logger = logger
        var hookLogger = hookLogger
        hookLogger[metadataKey: "app"] = .string(configuration.appId)
        self.hookLogger = hookLogger
        outputRelay = WorkerOutputRelay(appId: configuration.appId, limits: configuration.outputLimits, metrics: metrics, logger: hookLogger)
        self.clock = clock
        cpuShare = WorkerCPUShare(appId: configuration.appId, longCallCores: configuration.longCallCores)
        state = Mutex(
            WorkerPoolState(
                slots: configuration.workerCount,
                backoff: RestartBackoff(base: configuration.restartDelay, maximum: configuration.maximumRestartDelay),
                restartBudget: RestartBudget(burst: configuration.restartBurst, interval: .seconds(1) / configuration.restartsPerSecond),
                supervisorWake: supervisorWake))
    }

    /// Prepares the workers' folder, then runs one worker until it has said which hooks it serves
    /// (throwing if none does within the startup timeout) and stops it; ``run()`` starts the
    /// workers. Restarts of workers are counted in `metrics`, when given.
    ///
    /// Each worker's only way to the host is the socket pair made for it: the host listens on no
    /// socket, so no process can find a pool in `/proc/net/unix` or the file system and connect to
    /// it, and a pool has exactly one connection per worker. (A socket in a private folder would not
    /// do: workers run as the host's user, and Landlock does not govern connecting to a socket.)
    public static func launch(
        _ configuration: WorkerPoolConfiguration, logger: Logger, hookLogger: Logger? = nil, clock: any CloudletClock = SystemClock(),
        metrics: CloudletMetrics? = nil
    ) async throws -> WorkerPool {
        let pool = WorkerPool(configuration: configuration, logger: logger, hookLogger: hookLogger ?? logger, clock: clock, metrics: metrics)
        pool.reportCPUShare()
        try WorkerFolder.prepare(configuration.workingFolder)
        try await pool.announceHooks()
        return pool
    }

    /// Starts the workers of every slot that has none (a slot whose worker ended before, and whose
    /// restart is pending, gets its worker from that restart alone), supervises them until graceful
    /// shutdown (or until cancelled), then stops them and returns once every one has ended and every
    /// store call their hooks made has been answered, leaving no CPU group behind. Each worker
    /// process runs in a child task of this one, which reads its output; so does each store call.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await cancelWhenGracefulShutdown {
                    while true {
                        let wait = self.supervise()
                        await self.supervisorWake.wait(until: Date().addingTimeInterval(wait.seconds), on: self.supervisionClock)
                        try Task.checkCancellation()
                    }
                }
                self.stop()
            }
            group.addTask { await self.serveStoreCalls() }
            for slot in 0..<configuration.workerCount where state.withLock({ $0.workers[slot] == nil && $0.restarts[slot] == nil }) {
                do { try spawn(slot, replacing: false) } catch { logger.error("could not start worker", metadata: ["error": "\(error)"]) }
            }
            for await start in starts.stream {
                group.addTask { await self.runWorker(start) }
            }
        }
        cpuShare.remove()
    }

    /// The hook of `kind` for `name` as the workers announced it: its time and rate limits.
    public func hook(_ kind: HookKind, _ name: String) -> HookRegistry.Summary? {
        state.withLock { $0.hooks?[WorkerPoolState.hookKey(kind, name)] }
    }

    /// The hooks the workers announced in their hello, with their time limits.
    public var announcedHooks: [HookRegistry.Summary] {
        state.withLock { $0.hooks.map { Array($0.values) } ?? [] }.sorted { ($0.name, $0.kind.rawValue) < ($1.name, $1.kind.rawValue) }
    }

    /// Whether every slot has a worker that has said hello, and the pool is not stopping (false
    /// until ``run()`` has started the workers and each has said hello).
    public var isReady: Bool {
        state.withLock { state in
            !state.isShuttingDown && (0..<configuration.workerCount).allSatisfy { state.workers[$0]?.lifecycle.state == .ready }
        }
    }

    /// How many calls wait for a free worker now.
    public var queuedInvocations: Int {
        state.withLock { $0.waiters.count }
    }

    /// Starts the worker of `slot`: at once in memory (with a connector), else by asking ``run()``
    /// to start its process; `replacing` one of a slot whose workers keep ending (see
    /// ``RestartBackoff/startsNextWorkerOnProbation``), it starts in the app's idle CPU group.
    func spawn(_ slot: Int, replacing: Bool) throws {
        guard let connector else {
            starts.continuation.yield(WorkerStart(slot: slot, replacing: replacing))
            return
        }
        try state.withLock { state in
            guard !state.isShuttingDown else { return }
            let process = try startInMemory(slot, with: connector)
            let lifecycle = WorkerLifecycle(spawnedAt: clock.now, limits: configuration.lifecycleLimits, replacing: replacing)
            state.workers[slot] = WorkerPoolState.Worker(process: process, lifecycle: lifecycle)
        }
    }

    /// Waits until a worker has said which hooks the pool serves, for the startup timeout at most.
    func waitForHooks() async throws {
        let giveUp = ContinuousClock.now + configuration.startupTimeout
        while state.withLock({ $0.hooks == nil }) {
            guard ContinuousClock.now < giveUp else {
                throw ParseError(code: 1, message: "no worker of app \(configuration.appId) started within \(configuration.startupTimeout)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Says once, at launch, what keeps this app's hooks from the CPU the host needs here.
    private func reportCPUShare() {
        if let reason = cpuShare.unavailableReason {
            logger.warning("workers with long calls run at nice 19, with no CPU cap: \(reason)")
        } else {
            let cap = cpuShare.longCallCores.map { "capped at \($0) cores" } ?? "with no CPU cap"
            logger.info("workers with long calls run in an idle cgroup, \(cap)", metadata: ["cgroup": "\(cpuShare.idleGroupPath ?? "")"])
        }
    }

    /// The longest wait between supervision ticks.
    static let supervisionInterval = Duration.milliseconds(50)

    /// The wait between ticks of a supervisor with nothing to watch (``WorkerPoolState/isQuiet``):
    /// a call placed on a worker, or a worker's end, wakes it at once.
    static let restingInterval = Duration.seconds(1)

    /// One supervision tick: kill overdue or unhealthy workers, send health checks, move workers
    /// whose call runs long, or that replace an ended worker and have not said hello, to their
    /// app's idle CPU group (and back), restart slots. Returns the
    /// wait until the next tick: ``supervisionInterval``, or less when a call in flight will have
    /// run for ``WorkerPoolConfiguration/demotionDelay`` sooner, so that a hook that spins is
    /// demoted then rather than up to a tick later.
    private func supervise() -> Duration {
        let now = clock.now
        var kills: [(WorkerProcess, String)] = []
        var pings: [WorkerProcess] = []
        var restarts: [(slot: Int, replacing: Bool)] = []
        var demotions: [(pid: Int32, demote: Bool)] = []
        var demotionChecks: [Date] = []
        state.withLock { state in
            for worker in Array(state.workers.values) + Array(state.draining.values) {
                let long = worker.lifecycle.belongsInTheIdleGroup(longCall: configuration.demotionDelay, at: now)
                if long != state.demoted.contains(worker.process.pid), worker.process.isProcess {
                    if long { state.demoted.insert(worker.process.pid) } else { state.demoted.remove(worker.process.pid) }
                    demotions.append((worker.process.pid, long))
                }
                if !long, let oldest = worker.lifecycle.oldestCallSentAt {
                    demotionChecks.append(oldest.addingTimeInterval(configuration.demotionDelay.seconds))
                }
                switch worker.lifecycle.verdict(at: now) {
                case .healthy: break
                case .ping:
                    state.updateLifecycle(of: worker.process) { $0.pinged(at: now) }
                    pings.append(worker.process)
                case .kill(let reason):
                    state.updateLifecycle(of: worker.process) { $0.killing(because: reason) }
                    kills.append((worker.process, reason))
                }
            }
            for (slot, at) in state.restarts where at <= now {
                state.restarts.removeValue(forKey: slot)
                restarts.append((slot, state.backoffs[slot].startsNextWorkerOnProbation))
            }
        }
        outputRelay.summarize()
        for (process, reason) in kills {
            let planned = reason == WorkerLifecycle.drained
            logger.log(
                level: planned ? .info : .warning, planned ? "stopping worker" : "killing worker",
                metadata: ["worker.pid": "\(process.pid)", "reason": "\(reason)"])
            if planned { process.stop() } else { process.kill() }
        }
        for process in pings { process.send(.ping(id: UInt64(truncatingIfNeeded: process.pid))) }
        for (pid, demote) in demotions {
            if demote { cpuShare.demote(pid) } else { cpuShare.promote(pid) }
        }
        for (slot, replacing) in restarts {
            do {
                try spawn(slot, replacing: replacing)
                metrics?.workerRestarted(app: configuration.appId)
            } catch {
                logger.error("could not start worker", metadata: ["error": "\(error)"])
                state.withLock { $0.restarts[slot] = now.addingTimeInterval(configuration.maximumRestartDelay.seconds) }
            }
        }
        let rests = state.withLock { state in
            state.supervisorRests = state.isQuiet
            return state.supervisorRests
        }
        return rests ? Self.restingInterval : Self.wait(from: now, untilTheEarliestOf: demotionChecks)
    }

    /// The wait from `now` until the next supervision tick: ``supervisionInterval``, or until the
    /// earliest of `demotionChecks` (at least a millisecond) if that comes sooner.
    static func wait(from now: Date, untilTheEarliestOf demotionChecks: [Date]) -> Duration {
        let seconds = min(demotionChecks.map { $0.timeIntervalSince(now) }.min() ?? .infinity, supervisionInterval.seconds)
        return .milliseconds(max(Int64((seconds * 1000).rounded(.up)), 1))
    }

    /// Replaces every worker without failing a call: new workers start at once (from the executable
    /// as it is now, whose hook list then replaces the old one) while the old ones finish the calls
    /// they have and are then ended. Calls arriving meanwhile wait for the new workers.
    public func reload() {
        let now = clock.now
        state.withLock { state in
            guard !state.isShuttingDown else { return }
            for (slot, var worker) in state.workers {
                worker.lifecycle.drain()
                state.draining[worker.process.pid] = worker
                state.workers.removeValue(forKey: slot)
            }
            for slot in 0..<configuration.workerCount {
                state.restarts[slot] = now
                state.backoffs[slot].reset()
            }
            state.hooksNeedRefresh = true
            state.wakeSupervisor()
        }
        logger.info("reloading workers")
    }

    /// Stops for good: refuses new calls, fails waiting ones, starts no more workers and stops
    /// every worker gracefully (their connections close as they end).
    func stop() {
        let (workers, waiters) = state.withLock { state in
            state.isShuttingDown = true
            state.restarts = [:]
            for slot in state.workers.keys { state.workers[slot]?.lifecycle.killing(because: WorkerLifecycle.poolStopped) }
            for pid in state.draining.keys { state.draining[pid]?.lifecycle.killing(because: WorkerLifecycle.poolStopped) }
            defer { state.waiters = [] }
            return ((Array(state.workers.values) + Array(state.draining.values)).map(\.process), state.waiters)
        }
        starts.continuation.finish()
        storeCalls.continuation.finish()
        for waiter in waiters { waiter.continuation.resume(throwing: ParseError.unavailable("the server is shutting down")) }
        for worker in workers { worker.stop() }
    }
}
