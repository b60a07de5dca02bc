import CloudletRuntime
import Foundation

/// The lifecycle of one worker process, free of I/O: starting → ready (idle or busy) → [draining] →
/// killed → exited.
///
/// The pool feeds it what happened (hello, invocations sent and answered, pings and pongs, the exit)
/// and asks it, on each supervision tick, whether the worker must be killed.
struct WorkerLifecycle: Sendable {
    /// Where the worker is in its life.
    enum State: Sendable, Equatable {
        /// Spawned at `since`; has not said hello yet.
        case starting(since: Date)
        /// Connected and serving.
        case ready
        /// Replaced by a reload: finishing the calls it has, taking no new ones.
        case draining
        /// Sent SIGKILL, for `reason`; its exit is still to come.
        case killed(reason: String)
        /// The process has ended.
        case exited
    }

    /// What a supervision tick decides.
    enum Verdict: Sendable, Equatable {
        case healthy
        /// Send a health check.
        case ping
        /// Kill the worker, for this reason.
        case kill(String)
    }

    /// Time limits the lifecycle enforces.
    struct Limits: Sendable {
        /// How long a worker may take from spawn to hello.
        var startupTimeout: Duration
        /// How long past an invocation's deadline a worker may still answer before it is killed.
        var killGrace: Duration
        /// How often a ready worker is checked.
        var healthCheckInterval: Duration
        /// How long a health check may go unanswered.
        var healthCheckTimeout: Duration
        /// Most invocations one worker runs at once.
        var maximumInFlight: Int
    }

    private(set) var state: State
    /// Invocations sent and not yet answered, with their deadlines.
    private(set) var inFlight: [UInt64: Date] = [:]
    /// When each invocation in flight was sent.
    private var sentAt: [UInt64: Date] = [:]
    /// An invocation that runs alone on the worker (a retry whose worker died under it): while it is
    /// in flight the worker takes no other call, so that a crash can be laid at its door for sure.
    private(set) var exclusive: UInt64?
    private var lastHealthy: Date
    private var pingSentAt: Date?
    /// Whether the worker replaces one of a slot whose workers keep ending (see
    /// ``RestartBackoff/startsNextWorkerOnProbation``): it starts on probation, in its app's idle
    /// CPU group, until its hello.
    let replacesAnEndedWorker: Bool
    let limits: Limits

    /// A worker spawned at `now`; `replacing` when it takes the slot of workers that keep ending.
    init(spawnedAt now: Date, limits: Limits, replacing: Bool = false) {
        state = .starting(since: now)
        lastHealthy = now
        self.limits = limits
        replacesAnEndedWorker = replacing
    }

    /// Whether the worker has room for one more invocation at `now`: it serves, is not full, runs no
    /// call alone, and runs no call past its deadline (such a worker is about to be killed, and would
    /// take the call along). An `exclusive` call needs a worker that runs nothing else.
    func canAccept(at now: Date, exclusive wantsExclusive: Bool = false) -> Bool {
        guard state == .ready, exclusive == nil else { return false }
        if wantsExclusive { return inFlight.isEmpty }
        return inFlight.count < limits.maximumInFlight && !(inFlight.values.min().map { $0 <= now } ?? false)
    }

    /// Whether the worker is serving and running at least one invocation.
    var isBusy: Bool { state == .ready && !inFlight.isEmpty }

    /// Ready, with no call in flight and no health check unanswered: nothing to watch until its
    /// next health check is due.
    var isIdle: Bool { state == .ready && inFlight.isEmpty && pingSentAt == nil }

    /// The worker said hello at `now`.
    mutating func becameReady(at now: Date) {
        guard case .starting = state else { return }
        state = .ready
        lastHealthy = now
    }

    /// Invocation `id` was sent at `now`, to be answered by `deadline`; alone on the worker if `exclusive`.
    mutating func sent(_ id: UInt64, at now: Date, deadline: Date, exclusive isExclusive: Bool = false) {
        inFlight[id] = deadline
        sentAt[id] = now
        if isExclusive { exclusive = id }
    }

    /// Invocation `id` was answered.
    mutating func answered(_ id: UInt64) {
        inFlight.removeValue(forKey: id)
        sentAt.removeValue(forKey: id)
        if exclusive == id { exclusive = nil }
    }

    /// Whether the worker belongs in its app's idle CPU group at `now`: one of its calls has run for
    /// `longCall` or more (a hook that spins or computes for long), or it replaces workers that
    /// keep ending and has not said hello yet (an app whose hooks crash or are killed again and again —
    /// trapping, taking memory to their limit, hanging — starts its next process, and pays for
    /// its memory, from the CPU the host and the other apps leave).
    /// A worker on probation that has not said hello within ``longestProbation`` goes back to its
    /// app's group: where the host's cores stay busy, the idle group gives a starting process
    /// nothing, and the app would be left without a worker.
    func belongsInTheIdleGroup(longCall: Duration, at now: Date) -> Bool {
        if replacesAnEndedWorker, case .starting(let since) = state, now.timeIntervalSince(since) < Self.longestProbation.seconds {
            return true
        }
        guard let oldest = oldestCallSentAt else { return false }
        return now.timeIntervalSince(oldest) >= longCall.seconds
    }

    /// When the oldest invocation in flight was sent, if one is.
    var oldestCallSentAt: Date? { sentAt.values.min() }

    /// A health check was sent at `now`.
    mutating func pinged(at now: Date) {
        pingSentAt = now
    }

    /// The health check was answered at `now`.
    mutating func ponged(at now: Date) {
        pingSentAt = nil
        lastHealthy = now
    }

    /// What to do with the worker at `now`.
    func verdict(at now: Date) -> Verdict {
        switch state {
        case .starting(let since):
            return now.timeIntervalSince(since) > limits.startupTimeout.seconds ? .kill("did not start in time") : .healthy
        case .killed, .exited:
            return .healthy
        case .draining:
            if isOverdue(at: now) { return .kill("a hook ran past its deadline") }
            return inFlight.isEmpty ? .kill(Self.drained) : .healthy
        case .ready:
            if isOverdue(at: now) { return .kill("a hook ran past its deadline") }
            if let pingSentAt {
                return now.timeIntervalSince(pingSentAt) > limits.healthCheckTimeout.seconds ? .kill("missed a health check") : .healthy
            }
            return now.timeIntervalSince(lastHealthy) >= limits.healthCheckInterval.seconds ? .ping : .healthy
        }
    }

    /// The worker was replaced: it finishes what it runs and is then ended.
    mutating func drain() {
        switch state {
        case .starting, .ready: state = .draining
        case .draining, .killed, .exited: break
        }
    }

    private func isOverdue(at now: Date) -> Bool {
        guard let earliest = inFlight.values.min() else { return false }
        return now.timeIntervalSince(earliest) > limits.killGrace.seconds
    }

    /// The worker is being killed for `reason`.
    mutating func killing(because reason: String) {
        if state != .exited { state = .killed(reason: reason) }
    }

    /// The longest a starting worker stays on probation in its app's idle CPU group.
    static let longestProbation = Duration.seconds(1)

    /// The kill reason of a worker replaced by a reload once it has finished its calls.
    static let drained = "drained"
    /// The kill reason of every worker of a pool that stops (the server's graceful shutdown, or the
    /// app's pool replaced or removed).
    static let poolStopped = "the pool stopped"

    /// Whether the worker is being ended on purpose (``drained`` or ``poolStopped``) rather than for a fault.
    var isStopping: Bool {
        guard case .killed(let reason) = state else { return false }
        return reason == Self.drained || reason == Self.poolStopped
    }

    /// The process ended. Returns the invocations it leaves unanswered, and whether the pool asked for
    /// the end (a kill) rather than the worker crashing on its own.
    mutating func exited() -> (unanswered: [UInt64], wasKilled: Bool) {
        let wasKilled = if case .killed = state { true } else { false }
        state = .exited
        defer { inFlight = [:]; sentAt = [:]; exclusive = nil }
        return (inFlight.keys.sorted(), wasKilled)
    }
}
