import Cloudlet
import Foundation

extension AppRuntime {
    /// The kinds of queued work an app's runtime runs.
    static let workKinds: Set<WorkKind> = [.job, .pushDelivery]

    /// Runs `work` as its kind says (a push delivery through `push`'s providers), and answers what
    /// becomes of its row.
    public func runQueuedWork(_ work: ClaimedWork, push: PushDeliverySetup) async -> WorkOutcome {
        switch work.kind {
        case .job:
            return await runQueuedJob(work)
        case .pushDelivery:
            return await PushDeliveryRunner(storage: storage, setup: push, clock: clock, logger: logger).run(work)
        default:
            logger.error("dropped queued work of a kind this server does not run", metadata: ["work": "\(work.id)", "kind": "\(work.kind)"])
            return .done
        }
    }
}
