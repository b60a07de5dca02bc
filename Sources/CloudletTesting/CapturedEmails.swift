import CloudletRuntime
import Synchronization

/// The emails a ``HookHarness`` app sent (password-reset and verification links), in order: the
/// harness's email adapter, in place of the log, SMTP or a webhook.
public final class CapturedEmails: EmailSender {
    private let sent = Mutex<[EmailMessage]>([])

    public init() {}

    public func send(_ message: EmailMessage) async throws {
        sent.withLock { $0.append(message) }
    }

    /// Every email sent so far.
    public var all: [EmailMessage] { sent.withLock { $0 } }
}
