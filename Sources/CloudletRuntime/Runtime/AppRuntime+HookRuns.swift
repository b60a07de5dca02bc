import Cloudlet
import Foundation

/// One hook run being watched: when it started, and the lines it logs.
package struct HookRunObservation {
    /// The hook as `kind:name`, as metrics and the hook log name it.
    package let hook: String
    package let requestId: String
    package let startedAt: Date
    package let started = ContinuousClock.now
    let capture = HookRunCapture()

    init(_ kind: HookKind, _ name: String, requestId: String, startedAt: Date) {
        hook = "\(kind.rawValue):\(name)"
        self.requestId = requestId
        self.startedAt = startedAt
    }
}

extension AppRuntime {
    /// Counts the ended `run` in the metrics and keeps it in the app's hook log.
    package func finish(_ run: HookRunObservation, _ outcome: HookOutcome, error: String? = nil) {
        let duration = ContinuousClock.now - run.started
        metrics?.hookRan(app: appId, hook: run.hook, outcome: outcome, duration: duration)
        guard let hookRuns else { return }
        let (lines, dropped) = run.capture.end()
        hookRuns.record(
            HookRun(
                hook: run.hook, requestId: run.requestId, startedAt: run.startedAt, duration: duration, outcome: outcome, error: error,
                lines: lines, droppedLines: dropped))
    }
}
