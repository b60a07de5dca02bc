import Cloudlet
import CloudletRuntime
import Foundation

/// A push job the hooks recorded, resolved as delivery would resolve it: the installations it
/// reaches now, each with the payload it would get.
public struct CapturedPush: Sendable, Hashable {
    /// One installation a job reaches, and what it would be sent.
    public struct Recipient: Sendable, Hashable {
        /// The installation's `installationId`.
        public let installationId: String?
        /// `ios`, `android`, `web`, …
        public let deviceType: String?
        /// The token the notification would be sent to.
        public let deviceToken: String
        /// The job's data for this installation: a badge `Increment` is its own badge plus the amount.
        public let data: [String: ParseValue]
    }

    /// The `_PushStatus` object id.
    public let jobId: String
    /// `pending`, or `scheduled` for a push time to come (delivery moves it on).
    public let status: PushJobStatus
    /// `hook` or `rest`.
    public let source: String
    /// The job's `where` on `_Installation`.
    public let query: [String: ParseValue]
    /// The job's data, as recorded.
    public let data: [String: ParseValue]
    /// When it is to be sent; nil for now.
    public let pushTime: Date?
    /// When it stops being worth sending.
    public let expiration: Date?
    /// Notifications with the same collapse id replace each other on the device.
    public let collapseId: String?
    /// The installations with a token that the query matches, in `objectId` order.
    public let recipients: [Recipient]

    /// The alert's text: the `alert` string, or the `body` of an alert object.
    public var alert: String? {
        data["alert"]?.stringValue ?? data["alert"]?["body"]?.stringValue
    }

    init(_ job: PushJob, recipients: [ParseObject]) {
        jobId = job.id
        status = job.status
        source = job.source
        query = job.query
        data = job.data
        pushTime = job.pushTime
        expiration = job.expiration
        collapseId = job.collapseId
        self.recipients = recipients.compactMap { installation in
            guard let token = installation["deviceToken"]?.stringValue else { return nil }
            var data = job.data
            if let increment = job.badgeIncrement {
                data["badge"] = .number((installation["badge"]?.doubleValue ?? 0) + Double(increment))
            }
            return Recipient(
                installationId: installation["installationId"]?.stringValue, deviceType: installation["deviceType"]?.stringValue,
                deviceToken: token, data: data)
        }
    }
}
