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
