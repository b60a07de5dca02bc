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

    public init(lease: Duration = .seconds(10), concurrency: Int = 32) {
        self.lease = lease
        self.concurrency = max(concurrency, 1)
    }
}

/// Claims and runs one app's queued work in a task group, as its runtime runs each kind
/// (``AppRuntime/runQueuedWork(_:)``): a claim takes as many due rows as it has room for, leased
/// to this process; while they run it renews their leases; each row ends as its run says.
///
/// It polls nothing: it sleeps until work is queued (``WorkQueue/workQueued``), a run ends, the
/// earliest row falls due, or (while it runs something) a lease needs renewing. On graceful
/// shutdown (or once its app is no longer served) it stops claiming and cancels its runs; each
/// row is then ended as its run says, handed back (due at once) unless the run finished. A row
/// whose loop was killed is claimed again when its lease runs out.
public struct AppWorkService: Service {
    /// The app whose work runs.
    public let runtime: AppRuntime
    /// Who this process is in the queue's leases.
    public let owner: String
    public let settings: WorkSettings
    /// Whether the loop still serves its app; once false, the loop ends as on a graceful shutdown.
    let isServed: @Sendable () -> Bool

    /// A loop of `runtime`'s work, holding leases as `owner`, while `isServed` answers true.
    public init(
        runtime: AppRuntime, owner: String = WorkOwner.thisProcess, settings: WorkSettings = WorkSettings(),
        isServed: @escaping @Sendable () -> Bool = { true }
    ) {
        self.runtime = runtime
        self.owner = owner
        self.settings = settings
        self.isServed = isServed
    }

    public func run() async {
        let held = HeldWork()
        let stopping = Atomic(false)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                var renewedAt = runtime.clock.now
                while !Task.isCancelled, !stopping.load(ordering: .acquiring), isServed() {
                    await settle(held.takeEnded())
                    let now = runtime.clock.now
                    do {
                        if !held.ids.isEmpty, now.timeIntervalSince(renewedAt) >= settings.lease.seconds / 3 {
                            try await queue.renew(held.ids, owner: owner, leasedUntil: now.addingTimeInterval(settings.lease.seconds))
                            renewedAt = now
                        }
                        let leasedUntil = now.addingTimeInterval(settings.lease.seconds)
                        let room = settings.concurrency - held.ids.count
                        for work in try await queue.claim(AppRuntime.workKinds, limit: room, owner: owner, at: now, leasedUntil: leasedUntil) {
                            if held.ids.isEmpty { renewedAt = now }
                            held.start(work.id)
                            group.addTask {
                                held.end(work, await runtime.runQueuedWork(work))
                                queue.workQueued.signal()
                            }
                        }
                    } catch is CancellationError {
                    } catch {
                        runtime.logger.error("could not claim queued work", metadata: ["error": "\(error)"])
                    }
                    let wake = await nextWake(renewedAt: renewedAt, holding: held.ids.count)
                    await queue.workQueued.wait(until: wake, on: runtime.clock)
                }
                group.cancelAll()
            }
            // The runs have ended, cancelled ones handing their rows back: this task is not
            // cancelled on a graceful shutdown, so it can still write that.
            await settle(held.takeEnded())
        } onGracefulShutdown: {
            stopping.store(true, ordering: .releasing)
            queue.workQueued.signal()
        }
    }

    private var queue: any WorkQueue { runtime.storage }

    /// When the loop next has something to do without being signalled: the earliest due row (while
    /// it has room for one: a run that ends signals), or while it holds `holding` rows, the renewal
    /// of their leases. Nil when neither.
    private func nextWake(renewedAt: Date, holding: Int) async -> Date? {
        let due = holding < settings.concurrency ? (try? await queue.nextDue(AppRuntime.workKinds)) ?? nil : nil
        let renewal = holding > 0 ? renewedAt.addingTimeInterval(settings.lease.seconds / 3) : nil
        return [due, renewal].compactMap { $0 }.min()
    }

    /// Ends the rows of `ended` as their outcomes say.
    private func settle(_ ended: [(ClaimedWork, WorkOutcome)]) async {
        for (work, outcome) in ended { await settle(work, outcome) }
    }

    /// Ends `work`'s row as `outcome` says.
    private func settle(_ work: ClaimedWork, _ outcome: WorkOutcome) async {
        do {
            switch outcome {
            case .done: try await queue.complete(work.id, owner: owner)
            case .retry(let due): try await queue.retry(work.id, owner: owner, at: due)
            case .released: try await queue.release([work.id], owner: owner, at: runtime.clock.now)
            }
        } catch is CancellationError {
            // Stopped without a graceful shutdown: the lease runs out instead.
        } catch {
            runtime.logger.error(
                "could not record how queued work ended", metadata: ["work": "\(work.id)", "kind": "\(work.kind)", "error": "\(error)"])
        }
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
        var ended: [(ClaimedWork, WorkOutcome)] = []
    }

    private let state = Mutex(State())

    /// The ids of the rows held: running, or ended and not yet settled.
    var ids: [String] { state.withLock { Array($0.running) } }

    func start(_ id: String) { _ = state.withLock { $0.running.insert(id) } }

    /// `work`'s run ended as `outcome`.
    func end(_ work: ClaimedWork, _ outcome: WorkOutcome) { state.withLock { $0.ended.append((work, outcome)) } }

    /// The runs that ended, to be settled, no longer held.
    func takeEnded() -> [(ClaimedWork, WorkOutcome)] {
        state.withLock { state in
            defer { state.ended = [] }
            for (work, _) in state.ended { state.running.remove(work.id) }
            return state.ended
        }
    }
}
