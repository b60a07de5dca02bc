import Cloudlet
import Foundation
import HTTPTypes

/// What the limiter needs to know of one request.
public struct RateLimitedRequest: Sendable {
    /// The path below the mount path, such as `/classes/Posts` (for a batch operation, its own path).
    public var path: String
    /// The method the request means (a `_method` override already applied), upper case.
    public var method: String
    /// The client's address, if known.
    public var address: String?
    /// The logged-in user, if any.
    public var userId: String?
    /// The SHA-256 of the session token, if any.
    public var sessionTokenHash: String?
    /// Whether it came with the master key.
    public var isMaster: Bool
    /// Whether a hook made it through its store.
    public var isInternal: Bool

    public init(
        path: String, method: String, address: String?, userId: String? = nil, sessionTokenHash: String? = nil, isMaster: Bool = false,
        isInternal: Bool = false
    ) {
        self.path = path
        self.method = method
        self.address = address
        self.userId = userId
        self.sessionTokenHash = sessionTokenHash
        self.isMaster = isMaster
        self.isInternal = isInternal
    }
}

/// One app's rate limiter: its policy over a ``RateLimitStore``, in stages (``RateLimitStage``).
///
/// The app's quota counts every request from outside, the master key's too (a tenant's own key
/// must not let it crowd out the host's other tenants), and before it each client address's share
/// of it (``RateLimitPolicy/addressShare``; not the master key's: one address must not spend the
/// quota of a tenant's other clients, while the tenant's own key only competes with itself); each
/// rule counts what it covers, by its zone. A request is let through only if every limit it falls
/// under has room, and then counts against all of them.
public struct RateLimiter: Sendable {
    /// The limits applied.
    public var policy: RateLimitPolicy
    private let store: any RateLimitStore
    private let clock: any CloudletClock

    public init(policy: RateLimitPolicy, store: any RateLimitStore = InMemoryRateLimitStore(), clock: any CloudletClock) {
        self.policy = policy
        self.store = store
        self.clock = clock
    }

    /// Charges `request` to the limits `stage` names. Throws 155 (HTTP 429) when one of them is
    /// used up, charging none of them; otherwise answers the tightest limit's state.
    @discardableResult
    public func admit(_ request: RateLimitedRequest, _ stage: RateLimitStage) async throws -> RateLimitOutcome {
        var limits: [(name: String, charge: RateLimitCharge, message: String?)] = []
        if stage.includesQuota, let quota = policy.quota, !request.isInternal {
            if let share = addressCharge(quota, address: request.address, isMaster: request.isMaster) {
                limits.append((Self.addressName, share, nil))
            }
            limits.append((Self.quotaName, Self.quotaCharge(quota), nil))
        }
        let rules = stage.includesRules ? policy.rules.enumerated().map { ("rule\($0.offset + 1)", $0.element) } : []
        let hookRules = stage.hookRules.enumerated().map { ("hook\($0.offset + 1)", $0.element) }
        for (name, rule) in rules + hookRules where rule.covers(request) {
            let key = "\(name)|\(rule.requestPath)|" + Self.zoneKey(rule.zone, request)
            limits.append((name, RateLimitCharge(key: key, quota: rule.quota), rule.errorResponseMessage))
        }
        guard !limits.isEmpty else { return RateLimitOutcome(headers: [:], remaining: .max) }
        let states = await store.charge(limits.map(\.charge), now: clock.now)
        if let refused = states.indices.first(where: { !states[$0].allowed }) {
            throw Self.refusal(name: limits[refused].name, quota: limits[refused].charge.quota, state: states[refused], message: limits[refused].message)
        }
        let tightest = states.indices.min { states[$0].remaining < states[$1].remaining }!
        return RateLimitOutcome(
            headers: Self.headers(name: limits[tightest].name, quota: limits[tightest].charge.quota, state: states[tightest]),
            remaining: states[tightest].remaining)
    }

    /// The refusal the app's quota, or the share of it of a request from `address` (without the
    /// master key: `isMaster` false), would give a request from outside now, if it is used up; nil
    /// if both have room, if there is no quota, or if the store cannot tell without waiting.
    /// Charges nothing.
    func quotaRefusalNow(address: String?, isMaster: Bool) -> RateLimitExceeded? {
        guard let quota = policy.quota else { return nil }
        let now = clock.now
        let limits: [(name: String, charge: RateLimitCharge)?] = [
            addressCharge(quota, address: address, isMaster: isMaster).map { (Self.addressName, $0) },
            (Self.quotaName, Self.quotaCharge(quota)),
        ]
        for case let (name, charge)? in limits {
            if let state = store.stateNow(charge, now: now), !state.allowed {
                return Self.refusal(name: name, quota: charge.quota, state: state, message: nil)
            }
        }
        return nil
    }

    /// The app's quota's name in the `RateLimit` fields, and its key in the store.
    private static let quotaName = "app"
    /// The name of one client address's share of the app's quota in the `RateLimit` fields; its
    /// key in the store is this and the address.
    private static let addressName = "address"

    private static func quotaCharge(_ quota: RateLimitQuota) -> RateLimitCharge {
        RateLimitCharge(key: quotaName, quota: quota)
    }

    /// The charge to `address`'s share of `quota`; nil for the master key, an unknown address or a
    /// whole share.
    private func addressCharge(_ quota: RateLimitQuota, address: String?, isMaster: Bool) -> RateLimitCharge? {
        guard !isMaster, let address, let share = policy.addressQuota(of: quota) else { return nil }
        return RateLimitCharge(key: Self.addressName + "|ip:" + address, quota: share)
    }

    private static func refusal(name: String, quota: RateLimitQuota, state: RateLimitState, message: String?) -> RateLimitExceeded {
        var headers = Self.headers(name: name, quota: quota, state: state)
        headers[.retryAfter] = String(max(1, Int(state.retryAfter.rounded(.up))))
        return RateLimitExceeded(message: message ?? "Too many requests.", headers: headers)
    }

    private static func zoneKey(_ zone: RateLimitZone, _ request: RateLimitedRequest) -> String {
        let address = "ip:" + (request.address ?? "unknown")
        switch zone {
        case .global: return "global"
        case .ip: return address
        case .user: return request.userId.map { "user:" + $0 } ?? address
        case .session: return request.sessionTokenHash.map { "session:" + $0 } ?? address
        }
    }

    private static let policyHeader = HTTPField.Name("RateLimit-Policy")!
    private static let stateHeader = HTTPField.Name("RateLimit")!

    /// The IETF `RateLimit-Policy` and `RateLimit` header fields for one limit.
    private static func headers(name: String, quota: RateLimitQuota, state: RateLimitState) -> HTTPFields {
        var fields = HTTPFields()
        fields[policyHeader] = "\"\(name)\";q=\(quota.count);w=\(max(1, Int(quota.window.seconds.rounded(.up))))"
        fields[stateHeader] = "\"\(name)\";r=\(state.remaining);t=\(Int(state.resetAfter.rounded(.up)))"
        return fields
    }
}

/// Which of an app's limits one charge is for.
public struct RateLimitStage: Sendable {
    let includesQuota: Bool
    let includesRules: Bool
    let hookRules: [RateLimitRule]

    /// The app's quota alone: checked as soon as the app is known, before the body is read.
    public static let quota = RateLimitStage(includesQuota: true, includesRules: false, hookRules: [])
    /// The policy's rules: checked once the caller and the method the request means are known.
    public static let rules = RateLimitStage(includesQuota: false, includesRules: true, hookRules: [])
    /// The quota and the rules together, for one operation of a batch.
    public static let all = RateLimitStage(includesQuota: true, includesRules: true, hookRules: [])

    /// The limits a hook declared for itself, checked before it runs.
    public static func hook(_ rules: [RateLimitRule]) -> RateLimitStage {
        RateLimitStage(includesQuota: false, includesRules: false, hookRules: rules)
    }
}

/// What an admitted request carries back to its response: the tightest limit's `RateLimit`
/// header fields and how many requests it still has.
public struct RateLimitOutcome: Sendable {
    public var headers: HTTPFields
    public var remaining: Int
}

/// A request refused by a rate limit: 429, Parse code 155, `Retry-After` and the `RateLimit` fields.
public struct RateLimitExceeded: Error, Sendable {
    /// The message the client gets.
    public let message: String
    /// `Retry-After`, `RateLimit-Policy` and `RateLimit`.
    public let headers: HTTPFields
}
