import Foundation

/// A connected LiveQuery client as its app's ``LiveQueryHub`` knows it: its id, who it connected
/// as, and the outbox its messages go to.
package final class LiveQueryClient: Sendable {
    /// The id the client was given (`clientId` in every message).
    package let id: String
    /// Whether it connected with the master key: every object is readable to it.
    package let isMaster: Bool
    /// The session it connected with, which its subscriptions read with unless they name their own.
    package let sessionToken: String?
    /// Its device's installation id, if it gave one.
    package let installationId: String?
    /// Where its messages wait to be written.
    package let outbox: LiveQueryOutbox

    package init(id: String = UUID().uuidString.lowercased(), isMaster: Bool, sessionToken: String?, installationId: String?, outbox: LiveQueryOutbox) {
        self.id = id
        self.isMaster = isMaster
        self.sessionToken = sessionToken
        self.installationId = installationId
        self.outbox = outbox
    }

    /// Queues `message`; false if the client's outbox has ended (it is being disconnected).
    @discardableResult
    package func send(_ message: [UInt8]) -> Bool {
        outbox.send(message)
    }

    /// Queues the refusal `refusal`.
    package func send(_ refusal: LiveQueryRefusal) {
        send(LiveQueryMessage.error(refusal))
    }
}
