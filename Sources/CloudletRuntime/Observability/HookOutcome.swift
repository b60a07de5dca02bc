import Cloudlet

/// How one hook run ended, as metrics and the hook log name it.
public enum HookOutcome: String, Sendable, CaseIterable, Codable {
    /// The hook answered.
    case ok
    /// The hook threw.
    case error
    /// The hook ran past its deadline.
    case timeout
    /// The worker running the hook ended before it answered.
    case crash
    /// The hook was not run: its circuit is open after repeated crashes.
    case circuitOpen = "circuit_open"
    /// The hook was not run: too many calls were waiting for a worker.
    case rejected
}

/// A hook call that failed outside the hook's own code — its worker crashed, its circuit is open,
/// the queue of waiting calls was full — so that the runtime counts it by ``outcome`` and answers
/// the client ``error``.
package struct HookDispatchError: Error {
    /// How the call ended.
    package let outcome: HookOutcome
    /// What the client is answered.
    package let error: ParseError

    package init(outcome: HookOutcome, error: ParseError) {
        self.outcome = outcome
        self.error = error
    }
}
