import Cloudlet
import Foundation

extension AppRuntime {
    /// The kinds of queued work an app's runtime runs.
    static let workKinds: Set<WorkKind> = [.job, .afterHook, .pushDelivery]

    /// Runs `work` as its kind says (a push delivery through `push`'s providers), and answers what
    /// becomes of its row.
    public func runQueuedWork(_ work: ClaimedWork, push: PushDeliverySetup) async -> WorkOutcome {
        switch work.kind {
        case .job:
            return await runQueuedJob(work)
        case .afterHook:
            return await runQueuedAfterHook(work)
        case .pushDelivery:
            return await PushDeliveryRunner(objects: stores.objects, push: stores.push, setup: push, clock: clock, logger: logger).run(work)
        default:
            logger.error("dropped queued work of a kind this server does not run", metadata: ["work": "\(work.id)", "kind": "\(work.kind)"])
            return .done
        }
    }

    /// Ends `work`'s row as `outcome` says, in the name of the holder the row was leased to.
    func endQueuedWork(_ work: ClaimedWork, as outcome: WorkOutcome) async {
        do {
            switch outcome {
            case .done: try await stores.work.complete(work.id, owner: work.owner)
            case .retry(let due): try await stores.work.retry(work.id, owner: work.owner, at: due)
            case .released: try await stores.work.release([work.id], owner: work.owner, at: clock.now)
            }
        } catch is CancellationError {
            // Stopped without a graceful shutdown: the lease runs out instead.
        } catch {
            logger.error("could not record how queued work ended", metadata: ["work": "\(work.id)", "kind": "\(work.kind)", "error": "\(error)"])
        }
    }

    /// Runs the row `work` this runtime queued held: in the app's ``AppWorkService`` at once when
    /// one takes rows (returning then, or with `waits`, once it has run and its row is ended), in
    /// this task otherwise; `run` runs it and answers what becomes of its row.
    func runHeldWork(_ work: ClaimedWork, waits: Bool, _ run: @escaping @Sendable () async -> WorkOutcome) async {
        let handed: Bool
        if waits {
            handed = await withCheckedContinuation { continuation in
                if !heldWork.hand(HandedWork(work: work, run: run, ended: { continuation.resume(returning: true) })) {
                    continuation.resume(returning: false)
                }
            }
        } else {
            handed = heldWork.hand(HandedWork(work: work, run: run, ended: {}))
        }
        guard !handed else { return }
        await endQueuedWork(work, as: await run())
    }
}
