import Foundation

extension PushDeliveryResolution {
    /// What becomes of a delivery after its attempt `attempts` (1 for the first) was answered
    /// `outcome` at `now`: a retry is due after the provider's `retryAfter`, or else after the
    /// configuration's backoff, unless the delivery has had its attempts, when it fails with the
    /// retry's reason.
    public init(_ outcome: PushOutcome, attempts: Int, now: Date, configuration: PushDeliveryConfiguration) {
        switch outcome {
        case .sent: self = .sent
        case .invalidToken(let reason, let unregisteredAt): self = .invalidToken(reason: reason, unregisteredAt: unregisteredAt)
        case .failed(let reason): self = .failed(reason: reason)
        case .jobFailed(let reason): self = .jobFailed(reason: reason)
        case .retry(let reason, let retryAfter):
            guard attempts < configuration.maximumAttempts else {
                self = .failed(reason: reason)
                return
            }
            let wait = retryAfter ?? configuration.backoff.delay(afterAttempt: attempts)
            self = .retry(reason: reason, at: now.addingTimeInterval(wait.seconds))
        }
    }
}
