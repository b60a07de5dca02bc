import Foundation
import Synchronization

/// Who holds a row its queuer runs itself, and until when: written with the row, so that no claim
/// takes it meanwhile, and so that a claim takes it once that lease runs out (its holder is gone).
public struct WorkHold: Sendable, Hashable {
    /// The holder the row is leased to.
    public var owner: String
    /// When the lease runs out.
    public var leasedUntil: Date

    public init(owner: String, leasedUntil: Date) {
        self.owner = owner
        self.leasedUntil = leasedUntil
    }
}

/// A row whose run ended, and what becomes of it.
struct EndedWork: Sendable {
    let work: ClaimedWork
    let outcome: WorkOutcome
}

/// A row its queuer holds, handed to the app's ``AppWorkService`` to run at once.
struct HandedWork: Sendable {
    /// The row, as held.
    let work: ClaimedWork
    /// Runs it, and answers what becomes of its row.
    let run: @Sendable () async -> WorkOutcome
}

/// Where an app's runtime hands the rows it queued held by itself (an after hook that runs after
/// the response, with its write) to
/// the app's ``AppWorkService``, which runs them in its task group at once instead of at its next
/// claim, and renews their leases while they run. Open while that service runs; while it is closed,
/// ``hand(_:)`` refuses and the runtime runs the row in its own task.
final class WorkHandoff: Sendable {
    private struct State {
        /// The holder and lease of the service taking rows; nil while none does.
        var taker: (owner: String, lease: Duration)?
        var waiting: [HandedWork] = []
        var ended: [EndedWork] = []
    }

    private let state = Mutex(State())
    /// Signalled when a row is handed or a run of the service ends, for the service's loop: apart
    /// from its queue's ``WorkQueue/workQueued``, so that the loop claims only when that says
    /// there may be new work to claim.
    let wake = WakeSignal()

    /// How a row queued at `now` to be handed to the service is held, for a run of at most
    /// `timeLimit`: leased to the service taking rows for its lease (it renews it), or with none, as
    /// ``heldByItsWriter(runningFor:at:)``.
    func hold(runningFor timeLimit: Duration, at now: Date) -> WorkHold {
        guard let taker = state.withLock({ $0.taker }) else { return heldByItsWriter(runningFor: timeLimit, at: now) }
        return WorkHold(owner: taker.owner, leasedUntil: now.addingTimeInterval(taker.lease.seconds))
    }

    /// How a row queued at `now` is held when the request that queued it runs it, for at most
    /// `timeLimit`: in the name of the service taking rows (this process when none does), until past
    /// the time limit, since nothing renews it.
    func heldByItsWriter(runningFor timeLimit: Duration, at now: Date) -> WorkHold {
        let owner = state.withLock { $0.taker?.owner } ?? WorkOwner.thisProcess
        return WorkHold(owner: owner, leasedUntil: now.addingTimeInterval((timeLimit + WorkSettings().lease).seconds))
    }

    /// Hands `work` to the service to run at once; false, leaving it to the caller, if none takes rows.
    func hand(_ work: HandedWork) -> Bool {
        whileTaken { $0.waiting.append(work) }
    }

    /// Leaves the row of `work`, run by the request that queued it, to the service to end as
    /// `outcome` says, in its next write of ended rows (the request answers meanwhile); false,
    /// leaving it to the caller, if none takes rows. Should the process die first, the row runs
    /// again, as at-least-once allows.
    func handEnded(_ work: ClaimedWork, _ outcome: WorkOutcome) -> Bool {
        whileTaken { $0.ended.append(EndedWork(work: work, outcome: outcome)) }
    }

    /// Makes `change` and wakes the service if one takes rows; answers whether one does.
    private func whileTaken(_ change: (inout State) -> Void) -> Bool {
        let taken = state.withLock { state in
            guard state.taker != nil else { return false }
            change(&state)
            return true
        }
        if taken { wake.signal() }
        return taken
    }

    /// The rows left to end since the last call.
    func takeEnded() -> [EndedWork] {
        state.withLock { state in
            defer { state.ended = [] }
            return state.ended
        }
    }

    /// The service holding leases as `owner` for `lease` takes rows from now on.
    func open(owner: String, lease: Duration) {
        state.withLock { $0.taker = (owner, lease) }
    }

    /// The rows handed since the last call, to run.
    func take() -> [HandedWork] {
        state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
    }

    /// No service takes rows any more; answers those handed and not taken, to hand back (the rows
    /// left to end stay for ``takeEnded()``).
    func close() -> [HandedWork] {
        state.withLock { state in
            state.taker = nil
            defer { state.waiting = [] }
            return state.waiting
        }
    }
}
