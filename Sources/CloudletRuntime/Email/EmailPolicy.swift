import Cloudlet
import Foundation
import Synchronization

/// How an app handles its users' emails, from its `email` setting: whether sign-ups are sent a
/// verification link, whether an unverified email may log in, how long links last, what the
/// messages say and where they go.
public struct EmailPolicy: Sendable {
    /// Whether a sign-up or a new email is sent a verification link (Parse's `verifyUserEmails`).
    public var verifyUserEmails = false
    /// Whether a user whose email is not verified is refused at login, 205 (Parse's
    /// `preventLoginWithUnverifiedEmail`).
    public var preventLoginWithUnverifiedEmail = false
    /// How long a verification link lasts (Parse's `emailVerifyTokenValidityDuration`).
    public var verificationLinkLifetime = Duration.seconds(24 * 3600)
    /// How long a password-reset link lasts (Parse's `passwordPolicy.resetTokenValidityDuration`).
    public var resetLinkLifetime = Duration.seconds(3600)
    /// The app's name in the messages and pages; the app id unless set.
    public var appName: String?
    /// Where the links point: the server's public URL and the API's mount path.
    public var links: EmailLinks?
    /// Where the messages go.
    public var sender: any EmailSender

    /// The default policy, sending through `sender`.
    public init(sender: any EmailSender) {
        self.sender = sender
    }
}

/// The links of one app's emails, under the server's public URL as Parse Server makes them:
/// `<public URL><mount>/apps/<app>/verify_email?token=…` and `…/request_password_reset?token=…`.
public struct EmailLinks: Sendable {
    let origin: ServerOrigin
    /// `<mount>/apps/<app>/`.
    let path: String

    /// The links of app `appId` on a server at `origin` with the API at `mountPath`.
    public init(origin: ServerOrigin, mountPath: String, appId: String) {
        self.origin = origin
        path = "\(mountPath)/apps/\(appId)/"
    }

    /// The page `page` (`verify_email`) with `token`, a token of URL-safe characters.
    func url(_ page: String, token: String) -> String {
        origin.value + path + page + "?token=" + token
    }
}

/// What an app's runtime keeps for its emails: the policy (which its settings replace) and the
/// bound on the two request endpoints.
final class EmailState: Sendable {
    private let current: Mutex<EmailPolicy>
    /// Requests for a link, by email and by client address.
    let throttle: EmailRequestThrottle

    init(policy: EmailPolicy, clock: any CloudletClock) {
        current = Mutex(policy)
        throttle = EmailRequestThrottle(clock: clock)
    }

    var policy: EmailPolicy {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

/// Bounds the requests for a verification or password-reset link, so that the endpoints cannot be
/// used to flood an inbox or a mail server: ``maximumPerEmail`` per address asked for and
/// ``maximumPerAddress`` per client address within ``window``, whether or not the email belongs to
/// a user (so the answer reveals nothing). Past either, 429 (155) until old requests age out.
public final class EmailRequestThrottle: Sendable {
    /// Requests for one email within the window.
    public static let maximumPerEmail = 5
    /// Requests from one client address within the window.
    public static let maximumPerAddress = 30
    /// How long a request counts.
    public static let window = Duration.seconds(3600)
    /// The most keys remembered at once.
    static let capacity = 100_000

    private let clock: any CloudletClock
    private let table: Mutex<FailureTable>

    init(clock: any CloudletClock) {
        self.clock = clock
        table = Mutex(FailureTable(startedAt: clock.now))
    }

    /// Counts a request for `email` from `address`, or throws 155 past a bound.
    func admit(email: String, address: String?) throws {
        let now = clock.now
        let seconds = Self.window.seconds
        let emailKey = "email:" + email.lowercased()
        let addressKey = address.map { "addr:" + $0 }
        let admitted = table.withLock { table -> Bool in
            table.rotate(now: now, window: seconds, capacity: Self.capacity)
            guard table.recentCount(emailKey, now: now, window: seconds) < Self.maximumPerEmail else { return false }
            if let addressKey, table.recentCount(addressKey, now: now, window: seconds) >= Self.maximumPerAddress { return false }
            table.append(emailKey, now, keeping: Self.maximumPerEmail)
            if let addressKey { table.append(addressKey, now, keeping: Self.maximumPerAddress) }
            return true
        }
        guard admitted else { throw ParseError(code: 155, message: "Too many email requests; try again later.", httpStatus: 429) }
    }
}
