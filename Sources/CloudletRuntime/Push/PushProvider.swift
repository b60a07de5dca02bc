import Cloudlet
import Foundation

/// Sends one notification to one device: APNs, FCM, a webhook or the log. An app's work loop
/// calls it once per attempt of a delivery, with as many calls in flight as the loop runs rows.
public protocol PushProvider: Sendable {
    /// Sends `message` and says how it went. A provider never throws for one device's failure:
    /// the outcome carries the reason, and whether to try again.
    func send(_ message: PushMessage) async -> PushOutcome
}

/// One notification for one device, as a delivery hands it to a provider.
public struct PushMessage: Sendable, Hashable {
    /// Stable across every attempt of this delivery (a UUID): APNs gets it as `apns-id`, FCM in
    /// the message's name, so that a retry after a lost answer is recognisable as the same one.
    public var id: String
    /// The installation's `deviceType` (`ios`, `android`, `web`, …).
    public var deviceType: String
    /// The installation's `deviceToken`.
    public var token: String
    /// The installation's `pushType` (such as `gcm`), if it has one.
    public var pushType: String?
    /// Parse's push `data`: `alert` (a string, or an object with `title`, `body`, `title-loc-key`,
    /// `loc-key`, `loc-args`…), `title`, `badge` (already a number: `Increment` is resolved per
    /// installation), `sound`, `content-available`, `mutable-content`, `category`, `thread-id`,
    /// and the app's own keys.
    public var data: [String: ParseValue]
    /// When the notification stops being worth delivering.
    public var expiration: Date?
    /// Notifications with the same collapse id replace each other on the device.
    public var collapseId: String?

    public init(
        id: String, deviceType: String, token: String, pushType: String? = nil, data: [String: ParseValue],
        expiration: Date? = nil, collapseId: String? = nil
    ) {
        self.id = id
        self.deviceType = deviceType
        self.token = token
        self.pushType = pushType
        self.data = data
        self.expiration = expiration
        self.collapseId = collapseId
    }
}

/// How one attempt of one delivery went.
public enum PushOutcome: Sendable, Hashable {
    /// The provider accepted it.
    case sent
    /// The token will never work again (APNs `BadDeviceToken`, `Unregistered`, `ExpiredToken`,
    /// `DeviceTokenNotForTopic`; FCM `UNREGISTERED`, an invalid token). The delivery fails with
    /// `reason`, and the installation's token is marked invalid, on APNs' 410 only when
    /// `unregisteredAt` is newer than the installation's last update.
    case invalidToken(reason: String, unregisteredAt: Date? = nil)
    /// Final for this delivery, kept with `reason` (FCM `SENDER_ID_MISMATCH`, …).
    case failed(reason: String)
    /// Final for the whole job: every delivery of it would fail the same way (APNs `PayloadTooLarge`).
    case jobFailed(reason: String)
    /// Worth another attempt (429, 5xx, a connection lost): after `retryAfter` if the provider
    /// said so, else after the delivery's exponential backoff with jitter.
    case retry(reason: String, retryAfter: Duration? = nil)

    /// The reason kept and counted for anything but ``sent``.
    public var reason: String? {
        switch self {
        case .sent: nil
        case .invalidToken(let reason, _), .failed(let reason), .jobFailed(let reason), .retry(let reason, _): reason
        }
    }
}

/// The providers one app sends through, by the installations' `deviceType`: the operator sets them
/// per app in the registry. A device type with no provider of its own goes to ``fallback``.
public struct PushProviders: Sendable {
    /// Providers by device type (`ios`, `android`, `web`, …).
    public var byDeviceType: [String: any PushProvider]
    /// The provider of every other device type, if any.
    public var fallback: (any PushProvider)?

    public init(byDeviceType: [String: any PushProvider] = [:], fallback: (any PushProvider)?) {
        self.byDeviceType = byDeviceType
        self.fallback = fallback
    }

    /// The provider for installations of `deviceType`, or nil when the app sends to none.
    public func provider(for deviceType: String) -> (any PushProvider)? {
        byDeviceType[deviceType] ?? fallback
    }
}
