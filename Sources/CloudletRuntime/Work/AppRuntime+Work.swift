import Cloudlet
import Foundation

extension AppRuntime {
    /// The kinds of queued work an app's runtime runs.
    static let workKinds: Set<WorkKind> = [.job]

    /// Runs `work` as its kind says, and answers what becomes of its row.
    public func runQueuedWork(_ work: ClaimedWork) async -> WorkOutcome {
        switch work.kind {
        case .job:
            return await runQueuedJob(work)
        default:
            logger.error("dropped queued work of a kind this server does not run", metadata: ["work": "\(work.id)", "kind": "\(work.kind)"])
            return .done
        }
    }
}
