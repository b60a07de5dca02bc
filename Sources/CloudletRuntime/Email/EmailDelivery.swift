import Cloudlet
import Foundation
import Logging

extension WorkKind {
    /// An email to send (``EmailMessage`` as its payload), through the app's email adapter; or a
    /// request for a link (`{"request", "email"}`), which queues the email if a user has that address.
    public static let email = WorkKind(rawValue: "email")
}

/// Answers the queued requests for email links and sends the queued emails of an app through its
/// adapter: a failure another try may mend (an SMTP server down, a 4xx reply, a webhook's 5xx) is
/// tried again after ``backoff``, up to ``maximumAttempts``; a permanent one (a 5xx SMTP reply) is
/// logged and dropped.
struct EmailDelivery {
    /// The waits between tries.
    static let backoff = Backoff(first: .seconds(30), maximum: .seconds(3600), isJittered: true)
    /// The most tries of one message (about a day of waits, at most an hour apart).
    static let maximumAttempts = 30

    let app: AppContext

    init(_ app: AppContext) {
        self.app = app
    }

    /// Answers `work`'s request or sends its message, and answers what becomes of its row.
    func run(_ work: ClaimedWork) async -> WorkOutcome {
        let message = EmailMessage(json: work.payload)
        guard message != nil || work.payload["request"] != nil else {
            app.logger.error("dropped a queued email that could not be read", metadata: ["work": "\(work.id)"])
            return .done
        }
        do {
            if let message {
                try await app.emailPolicy.sender.send(message)
            } else {
                try await UserEmails(app).answerRequest(work.payload)
            }
            return .done
        } catch is CancellationError {
            return .released
        } catch {
            let failure = error as? EmailSendFailure ?? EmailSendFailure("\(error)")
            let metadata: Logger.Metadata = ["work": "\(work.id)", "attempt": "\(work.attempts)", "reason": "\(failure.reason)"]
            guard !failure.isPermanent, work.attempts < Self.maximumAttempts else {
                app.logger.error("email not sent; given up", metadata: metadata)
                return .done
            }
            app.logger.warning("email not sent; will try again", metadata: metadata)
            return .retry(at: Self.backoff.due(afterAttempt: work.attempts, failedAt: app.clock.now))
        }
    }
}
