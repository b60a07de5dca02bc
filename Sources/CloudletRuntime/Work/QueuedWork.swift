import Cloudlet
import Foundation

/// An app's queued work as its runtime runs it: each kind by its part (jobs, after hooks, push
/// deliveries, emails), each row ended as its run says, in the name of the holder it was leased to.
struct QueuedWork {
    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// The kinds of queued work an app's runtime runs.
    static let kinds: Set<WorkKind> = [.job, .afterHook, .pushDelivery, .email]

    /// Runs `work` as its kind says (a push delivery through `push`'s providers), and answers what
    /// becomes of its row.
    func run(_ work: ClaimedWork, push: PushDeliverySetup) async -> WorkOutcome {
        switch work.kind {
        case .job:
            return await BackgroundJobs(app).runQueued(work)
        case .afterHook:
            return await AfterHooks(app).runQueued(work)
        case .pushDelivery:
            return await PushDeliveryRunner(objects: app.stores.objects, push: app.stores.push, setup: push, clock: app.clock, logger: app.logger).run(work)
        case .email:
            return await EmailDelivery(app).run(work)
        default:
            app.logger.error("dropped queued work of a kind this server does not run", metadata: ["work": "\(work.id)", "kind": "\(work.kind)"])
            return .done
        }
    }

    /// Ends `work`'s row as `outcome` says, in the name of the holder the row was leased to.
    func end(_ work: ClaimedWork, as outcome: WorkOutcome) async {
        await end([(work, outcome)])
    }

    /// Ends the row of each of `runs` as its outcome says, in one write, in the name of the holder
    /// each row was leased to.
    func end(_ runs: [(work: ClaimedWork, outcome: WorkOutcome)]) async {
        guard !runs.isEmpty else { return }
        do {
            try await app.stores.work.end(runs.map { WorkEnding(id: $0.work.id, owner: $0.work.owner, outcome: $0.outcome) }, at: app.clock.now)
        } catch is CancellationError {
            // Stopped without a graceful shutdown: the leases run out instead.
        } catch {
            app.logger.error(
                "could not record how queued work ended",
                metadata: ["work": "\(runs.map(\.work.id).joined(separator: ","))", "kind": "\(Set(runs.map(\.work.kind.rawValue)).sorted().joined(separator: ","))", "error": "\(error)"])
        }
    }

    /// Runs the row `work` the app's writes queued held. With `waits` (an after hook the response
    /// waits for), in this task, no hop to another task and back, its row left to the app's
    /// ``AppWorkService`` to end in its next write of ended rows. Otherwise in that service when
    /// it takes rows, returning at once. With no service, in this task, its row ended here. `run`
    /// runs it and answers what becomes of its row.
    func runHeld(_ work: ClaimedWork, waits: Bool, _ run: @escaping @Sendable () async -> WorkOutcome) async {
        if !waits, app.heldWork.hand(HandedWork(work: work, run: run)) { return }
        let outcome = await run()
        if app.heldWork.handEnded(work, outcome) { return }
        await end(work, as: outcome)
    }
}
