import Cloudlet
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// How one piece of claimed work ended, which says what becomes of its row.
public enum WorkOutcome: Sendable, Equatable {
    /// Done (or given up): the row goes.
    case done
    /// To be tried again at this time.
    case retry(at: Date)
    /// Not run to its end because its holder stops: the row is handed back, due at once.
    case released
}

/// Settings of the loops that run queued work.
public struct WorkSettings: Sendable, Hashable {
    /// How long a claim holds a row. A loop renews the leases of what it runs every third of this,
    /// so a row whose loop was killed is claimed again at most this long after the kill.
    public var lease: Duration
    /// The most rows one app runs at once.
    public var concurrency: Int
    /// How often each app's database files are looked at for a write by another process (such as
    /// `cloudlet push send`), after which its loop claims what is due.
    public var outsideWriteInterval: Duration
    /// The kinds of work run: by default every kind a runtime runs.
    public var kinds: Set<WorkKind>
    /// Whether this process is the only one that claims from the apps' queues (`cloudlet serve`
    /// holding its data folder's lock): rows other holders leased were then left by a process that
    /// ended without handing them back, and a loop takes them back as it starts, rather than once
    /// their leases run out. Default false (processes that share a store wait for the leases).
    public var soleHolder: Bool

    public init(
        lease: Duration = .seconds(10), concurrency: Int = 32, outsideWriteInterval: Duration = .seconds(2), kinds: Set<WorkKind>? = nil,
        soleHolder: Bool = false
    ) {
        self.lease = lease
        self.concurrency = max(concurrency, 1)
        self.outsideWriteInterval = outsideWriteInterval
        self.kinds = kinds ?? QueuedWork.kinds
        self.soleHolder = soleHolder
    }
}

/// Claims and runs one app's queued work in a task group, as its runtime runs each kind
/// (jobs, after hooks and push deliveries): a claim takes as many due rows as it has room for, leased
/// to this process; while they run it renews their leases; each row ends as its run says, the
/// ends of done runs held for a moment so that many share one write (``EndBatch``).
///
/// It also runs at once the rows its runtime queued held and hands it (``WorkHandoff``: an after
/// hook that runs after the response, right after its write), renewing their leases as it does
/// its claims'.
///
/// It polls nothing: it sleeps until work is queued (``WorkQueue/workQueued``) or handed, a run
/// ends, the earliest row falls due, held ends are due to be written, or (while it runs something)
/// a lease needs renewing. On graceful shutdown (or once its app is no longer served) it stops
/// claiming and taking rows and cancels its runs; each row is then ended as its run says, handed
/// back (due at once) unless the run finished, with the ends still held. A row whose loop was
/// killed is claimed again when its lease runs out, or at once when the next loop is its queue's
/// sole holder (``WorkSettings/soleHolder``).
public struct AppWorkService: Service {
    /// The app whose work runs.
    public let runtime: AppRuntime
    /// Who this process is in the queue's leases.
    public let owner: String
    public let settings: WorkSettings
    /// Where and how the app's push deliveries are sent.
    public let push: PushDeliverySetup
    /// Whether the loop still serves its app; once false, the loop ends as on a graceful shutdown.
    let isServed: @Sendable () -> Bool

    /// A loop of `runtime`'s work, holding leases as `owner`, sending push as `push` says, while
    /// `isServed` answers true.
    public init(
        runtime: AppRuntime, owner: String = WorkOwner.thisProcess, settings: WorkSettings = WorkSettings(),
        push: PushDeliverySetup = PushDeliverySetup(), isServed: @escaping @Sendable () -> Bool = { true }
    ) {
        self.runtime = runtime
        self.owner = owner
        self.settings = settings
        self.push = push
        self.isServed = isServed
    }

    /// Takes the rows its runtime hands from now on, as ``run()`` does as it starts. Called before
    /// the loop's task starts, it makes the writes made meanwhile hand their after hooks to the loop
    /// (to run once it does) rather than run them in the request, response or not.
    package func takeHandedWork() {
        app.heldWork.open(owner: owner, lease: settings.lease)
    }

    public func run() async {
        let held = HeldWork()
        let stopping = Atomic(false)
        var heldEnds: [EndedWork] = []
        takeHandedWork()
        if settings.soleHolder { await takeBackAbandonedWork() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                var renewedAt = app.clock.now
                var claims = ClaimSchedule()
                var ends = EndBatch()
                while !Task.isCancelled, !stopping.load(ordering: .acquiring), isServed() {
                    let (ended, opened) = ends.add(held.takeEnded() + app.heldWork.takeEnded(), now: .now)
                    await settle(ended)
                    if ended.contains(where: { $0.outcome != .done }) { claims.rowsChanged() }
                    if opened {
                        group.addTask {
                            try? await Task.sleep(for: EndBatch.window)
                            app.heldWork.wake.signal()
                        }
                    }
                    let now = app.clock.now
                    for handed in app.heldWork.take() {
                        if held.ids.isEmpty { renewedAt = now }
                        held.start(handed.work.id)
                        group.addTask {
                            held.end(handed.work, await handed.run())
                            app.heldWork.wake.signal()
                        }
                    }
                    let room = settings.concurrency - held.ids.count
                    let queued = queue.workQueued.count
                    do {
                        if !held.ids.isEmpty, now.timeIntervalSince(renewedAt) >= settings.lease.seconds / 3 {
                            try await queue.renew(held.ids, owner: owner, leasedUntil: now.addingTimeInterval(settings.lease.seconds))
                            renewedAt = now
                        }
                        if room > 0, claims.isDue(at: now, queued: queued) {
                            let leasedUntil = now.addingTimeInterval(settings.lease.seconds)
                            let claimed = try await queue.claim(settings.kinds, limit: room, owner: owner, at: now, leasedUntil: leasedUntil)
                            for work in claimed {
                                if held.ids.isEmpty { renewedAt = now }
                                held.start(work.id)
                                group.addTask {
                                    held.end(work, await QueuedWork(app).run(work, push: push))
                                    app.heldWork.wake.signal()
                                }
                            }
                            claims.claimed(
                                queued: queued, filledRoom: claimed.count == room, nextDue: lookAgain(after: try await queue.nextDue(settings.kinds), now: now))
                        }
                    } catch is CancellationError {
                    } catch {
                        app.logger.error("could not claim queued work", metadata: ["error": "\(error)"])
                        // Tried again in a second, or as soon as work is queued.
                        claims.claimed(queued: queued, filledRoom: false, nextDue: now.addingTimeInterval(1))
                    }
                    // Full, the loop is woken by a run that ends rather than by a row falling due.
                    let renewal = held.ids.isEmpty ? nil : renewedAt.addingTimeInterval(settings.lease.seconds / 3)
                    let wake = [room > 0 ? claims.nextDue : nil, renewal].compactMap { $0 }.min()
                    await queue.workQueued.wait(orFor: [app.heldWork.wake], until: wake, on: app.clock)
                }
                // Rows handed from now on run in their runtime's own task.
                for handed in app.heldWork.close() { held.end(handed.work, .released) }
                group.cancelAll()
                heldEnds = ends.takeAll()
            }
            // The runs have ended, cancelled ones handing their rows back, as do the rows handed and
            // never run: this task is not cancelled on a graceful shutdown, so it can still write that.
            await settle(heldEnds + held.takeEnded() + app.heldWork.takeEnded())
        } onGracefulShutdown: {
            stopping.store(true, ordering: .releasing)
            app.heldWork.wake.signal()
        }
    }

    /// When to claim again, the earliest row falling due at `due`: then, and, where other nodes
    /// share the queue, within a lease at the latest, since the rows a node that died left fall
    /// due when its leases run out, which nothing announces.
    private func lookAgain(after due: Date?, now: Date) -> Date? {
        guard queue.isShared else { return due }
        return min(due ?? .distantFuture, now.addingTimeInterval(settings.lease.seconds))
    }

    private var app: AppContext { runtime.context }
    private var queue: any WorkQueue { app.stores.work }

    /// Makes the rows other holders leased due now: as sole holder, this loop knows them ended.
    private func takeBackAbandonedWork() async {
        do {
            let taken = try await queue.takeBack(leasedByOthersThan: owner, at: app.clock.now)
            if taken > 0 { app.logger.info("took back queued work an ended process held", metadata: ["rows": "\(taken)"]) }
        } catch {
            app.logger.error("could not take back queued work an ended process held", metadata: ["error": "\(error)"])
        }
    }

    /// Ends the rows of `ended` as their outcomes say, in one write.
    private func settle(_ ended: [EndedWork]) async {
        await QueuedWork(app).end(ended.map { ($0.work, $0.outcome) })
    }
}

/// When a work loop claims: a claim is a write, so the loop makes one only when there may be
/// something to take — work was queued since its last claim (``WorkQueue/workQueued`` was
/// signalled), the earliest row has fallen due, its last claim took all it had room for, or its own
/// runs made rows due again (a retry, a release). Rows the loop is handed are not claimed.
struct ClaimSchedule {
    /// When the earliest row falls due, as of the last claim; nil when none was queued.
    private(set) var nextDue: Date?
    /// The queue's signal count as the last claim began; nil before the first claim.
    private var queuedAtLastClaim: Int?
    private var mustClaim = true

    /// Whether to claim at `now`, the queue's signal count being `queued`.
    func isDue(at now: Date, queued: Int) -> Bool {
        mustClaim || queued != queuedAtLastClaim || nextDue.map { $0 <= now } ?? false
    }

    /// A claim began when the queue's signal count was `queued`; it took all it had room for if
    /// `filledRoom`, and the earliest row left falls due at `nextDue`.
    mutating func claimed(queued: Int, filledRoom: Bool, nextDue: Date?) {
        queuedAtLastClaim = queued
        mustClaim = filledRoom
        self.nextDue = nextDue
    }

    /// The loop's own runs changed when rows fall due: claim at the next turn.
    mutating func rowsChanged() {
        mustClaim = true
    }
}

/// Who holds leases in the work queue.
public enum WorkOwner {
    /// This process: its id and a random part, so that a restarted process is another holder.
    public static let thisProcess = "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
}

/// The rows a loop runs now, and those whose run ended and whose row is yet to be ended.
private final class HeldWork: Sendable {
    private struct State {
        var running: Set<String> = []
        var ended: [EndedWork] = []
    }

    private let state = Mutex(State())

    /// The ids of the rows held: running, or ended and not yet settled.
    var ids: [String] { state.withLock { Array($0.running) } }

    func start(_ id: String) { _ = state.withLock { $0.running.insert(id) } }

    /// `work`'s run ended as `outcome`.
    func end(_ work: ClaimedWork, _ outcome: WorkOutcome) {
        state.withLock { $0.ended.append(EndedWork(work: work, outcome: outcome)) }
    }

    /// The runs that ended, to be settled, no longer held.
    func takeEnded() -> [EndedWork] {
        state.withLock { state in
            defer { state.ended = [] }
            for run in state.ended { state.running.remove(run.work.id) }
            return state.ended
        }
    }
}
