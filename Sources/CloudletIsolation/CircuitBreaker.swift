import CloudletRuntime
import Foundation

/// Guards one hook against a crash loop: after `threshold` crashes in a row the circuit opens and
/// calls are refused for `openDuration`; then one probe call is let through (half-open), whose
/// success closes the circuit and whose crash opens it again. Free of I/O; time comes in as `now`.
struct CircuitBreaker: Sendable, Equatable {
    /// Where the circuit stands.
    enum State: Sendable, Equatable {
        /// Calls pass; `crashes` in a row so far.
        case closed(crashes: Int)
        /// Calls are refused until `until`.
        case open(until: Date)
        /// One probe call went out at `since`; others are refused until it ends, or until another
        /// open period has passed without an answer (the probe never reached a worker).
        case halfOpen(since: Date)
    }

    private(set) var state: State = .closed(crashes: 0)
    let threshold: Int
    let openDuration: Duration

    init(threshold: Int, openDuration: Duration) {
        self.threshold = threshold
        self.openDuration = openDuration
    }

    /// Whether a call may go ahead at `now`; when the open period is over, admits one probe.
    mutating func admit(at now: Date) -> Bool {
        switch state {
        case .closed:
            return true
        case .open(let until):
            guard now >= until else { return false }
        case .halfOpen(let since):
            guard now.timeIntervalSince(since) >= openDuration.seconds else { return false }
        }
        state = .halfOpen(since: now)
        return true
    }

    /// A call ended without crashing its worker.
    mutating func recordSuccess() {
        state = .closed(crashes: 0)
    }

    /// Whether a probe is out.
    var isHalfOpen: Bool {
        if case .halfOpen = state { true } else { false }
    }

    /// A call's worker crashed at `now`.
    mutating func recordCrash(at now: Date) {
        switch state {
        case .closed(let crashes) where crashes + 1 < threshold:
            state = .closed(crashes: crashes + 1)
        case .closed, .halfOpen, .open:
            state = .open(until: now.addingTimeInterval(openDuration.seconds))
        }
    }
}
