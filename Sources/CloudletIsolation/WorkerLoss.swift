import Cloudlet

/// A call whose worker ended before answering, and what the pool makes of it. Free of I/O.
///
/// Which call brought a worker down cannot be known for sure when it ran several: a trap ends the
/// process at once, with no word on which hook trapped. So blame is laid only where it is certain:
/// - a worker that crashed while running **one** call was crashed by it: "hook crashed", charged to
///   that hook's circuit;
/// - a worker that crashed while running several leaves each of them a **suspect**: each is retried
///   once, **alone** on a worker (which takes no other call meanwhile), if its deadline has not
///   passed. A suspect that crashes its worker again is then the only call there, and is blamed by
///   the first rule; an innocent one answers. A suspect that cannot be retried fails with 503 "worker
///   lost", which charges no circuit;
/// - a worker the pool killed was healthy: the call that overran its deadline (its caller has had
///   its 504) charges its circuit only as a failed probe, and the others are retried as above.
struct WorkerLoss: Sendable, Equatable {
    /// The pool killed the worker (a call overran, or it missed a health check) rather than it
    /// ending on its own.
    var wasKilled: Bool
    /// How many calls the worker had in flight when it ended, this one included.
    var callsInFlight: Int
    /// The worker trapped because an allocation failed (it reached its memory limit).
    var ranOutOfMemory = false

    /// What becomes of the lost call.
    enum Verdict: Sendable, Equatable {
        /// Run it again, alone on a worker.
        case retryAlone
        /// It crashed its worker: "hook crashed", charged to its circuit.
        case crashed
        /// It overran its deadline and got its worker killed: charged only to a half-open circuit.
        case overran
        /// Innocent or unknown, and out of retries or time: 503 "worker lost", no charge.
        case lost
    }

    /// The verdict for a call on its `attempt` (0 for the first), whose deadline has `deadlinePassed`.
    func verdict(attempt: Int, deadlinePassed: Bool) -> Verdict {
        if wasKilled && deadlinePassed { return .overran }
        if !wasKilled && callsInFlight == 1 { return .crashed }
        return attempt == 0 && !deadlinePassed ? .retryAlone : .lost
    }
}

extension ParseError {
    /// A call's worker ended under it while it ran beside others, and it could not be retried
    /// (HTTP 503, code 141). Charges no circuit: the call is not known to be at fault.
    static let workerLost = ParseError(code: 141, message: "worker lost", httpStatus: 503)

    /// A hook's result was over the wire's frame bound: code 141, as the worker itself answers it.
    static let resultTooLarge = ParseError.failed("hook result too large")
}
