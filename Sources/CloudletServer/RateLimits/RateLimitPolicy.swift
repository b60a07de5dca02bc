import Cloudlet
import Foundation

/// One app's limits: a default quota for all its requests together, rules in the shape of Parse
/// Server's `rateLimit` option, and caps on its hook invocations.
///
/// ```swift
/// var policy = try RateLimitPolicy(text: "40/s,burst=80")
/// policy.rules.append(RateLimitRule(requestPath: PathPattern("/login")!, quota: .init(count: 5, window: .seconds(60))))
/// ```
public struct RateLimitPolicy: Sendable, Hashable {
    /// The quota all of the app's requests share; nil for none.
    public var quota: RateLimitQuota?
    /// The part of ``quota`` (its rate and its burst) one client address may use, above 0 and at
    /// most 1 (1: no bound per address). Default ``standardAddressShare``. Master-key requests and
    /// requests whose address is unknown are not bound by it.
    public var addressShare: Double
    /// Further limits on some paths, methods and callers.
    public var rules: [RateLimitRule]
    /// The most hook invocations of the app that run at once. Default 32.
    public var maximumConcurrentHooks: Int
    /// The most hook invocations of the app that wait for a slot; past them, 503. Default 256.
    public var maximumQueuedHooks: Int

    public init(
        quota: RateLimitQuota? = RateLimitPolicy.standardQuota, addressShare: Double = RateLimitPolicy.standardAddressShare,
        rules: [RateLimitRule] = [], maximumConcurrentHooks: Int = 32, maximumQueuedHooks: Int = 256
    ) {
        self.quota = quota
        self.addressShare = addressShare
        self.rules = rules
        self.maximumConcurrentHooks = maximumConcurrentHooks
        self.maximumQueuedHooks = maximumQueuedHooks
    }

    /// 40 requests a second with a burst of 80, as Parse.com's plans had.
    public static let standardQuota = RateLimitQuota(perSecond: 40, burst: 80)

    /// A quarter of the app's quota per client address: one address cannot spend the app's whole
    /// quota, and four or more are needed to.
    public static let standardAddressShare = 0.25

    /// The quota one client address may use of `quota`: ``addressShare`` of its count, over the
    /// same window (at least one request); nil when the share is whole.
    func addressQuota(of quota: RateLimitQuota) -> RateLimitQuota? {
        guard addressShare < 1 else { return nil }
        return RateLimitQuota(count: max(1, Int((Double(quota.count) * addressShare).rounded(.down))), window: quota.window)
    }

    /// A policy with no limits on requests (hooks keep their caps).
    public static let off = RateLimitPolicy(quota: nil)

    /// The quota written as on the command line: `40/s,burst=80`, `600/min`, `5000/h`, or `off`.
    public static func quota(text: String) throws -> RateLimitQuota? {
        let invalid = ParseError(code: 1, message: "rate limit \(text): write it as 40/s,burst=80, 600/min or off")
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "off" || text == "none" { return nil }
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let rate = parts.first?.split(separator: "/") ?? []
        guard rate.count == 2, let count = Int(rate[0]), count > 0 else { throw invalid }
        let units: [String: Duration] = [
            "s": .seconds(1), "sec": .seconds(1), "second": .seconds(1), "m": .seconds(60), "min": .seconds(60),
            "minute": .seconds(60), "h": .seconds(3600), "hour": .seconds(3600),
        ]
        guard let unit = units[String(rate[1])] else { throw invalid }
        var burst = count
        for option in parts.dropFirst() {
            let pair = option.split(separator: "=")
            guard pair.count == 2, pair[0] == "burst", let value = Int(pair[1]), value > 0 else { throw invalid }
            burst = value
        }
        return RateLimitQuota(perSecond: Double(count) / unit.seconds, burst: burst)
    }

    /// The quota written back as ``quota(text:)`` reads it.
    public static func text(of quota: RateLimitQuota?) -> String {
        guard let quota else { return "off" }
        let rate = quota.ratePerSecond
        let shown = rate.rounded() == rate ? String(Int(rate)) + "/s" : String(Int((rate * 60).rounded())) + "/min"
        return shown + ",burst=\(quota.count)"
    }
}

extension RateLimitPolicy {
    /// The policy from its JSON form:
    /// `{"rate": "40/s,burst=80", "addressShare": 0.25, "rules": [...], "maxConcurrentHooks": 32, "maxQueuedHooks": 256}`;
    /// members left out keep their defaults.
    public init(json: ParseValue) throws {
        func invalid(_ what: String) -> ParseError { ParseError(code: 1, message: "rate limit policy: \(what)") }
        guard let members = json.objectValue else { throw invalid("must be an object") }
        let known: Set<String> = ["rate", "addressShare", "rules", "maxConcurrentHooks", "maxQueuedHooks"]
        if let unknown = members.keys.first(where: { !known.contains($0) }) { throw invalid("unknown field \(unknown)") }
        self.init()
        if let rate = members["rate"] {
            guard let text = rate.stringValue else { throw invalid("rate must be text such as 40/s,burst=80") }
            quota = try Self.quota(text: text)
        }
        if let share = members["addressShare"] {
            guard let number = share.doubleValue, number > 0, number <= 1 else { throw invalid("addressShare must be a number above 0 and at most 1") }
            addressShare = number
        }
        if let list = members["rules"] {
            guard let rules = list.arrayValue else { throw invalid("rules must be an array") }
            self.rules = try rules.map(RateLimitRule.init(json:))
        }
        func integer(_ name: String, atLeast minimum: Int) throws -> Int? {
            guard let value = members[name] else { return nil }
            guard let number = value.intValue, number >= minimum else { throw invalid("\(name) must be an integer of at least \(minimum)") }
            return number
        }
        maximumConcurrentHooks = try integer("maxConcurrentHooks", atLeast: 1) ?? maximumConcurrentHooks
        maximumQueuedHooks = try integer("maxQueuedHooks", atLeast: 0) ?? maximumQueuedHooks
    }

    /// The policy's JSON form.
    public var json: ParseValue {
        [
            "rate": .string(Self.text(of: quota)), "addressShare": .number(addressShare), "rules": .array(rules.map(\.json)),
            "maxConcurrentHooks": .number(Double(maximumConcurrentHooks)), "maxQueuedHooks": .number(Double(maximumQueuedHooks)),
        ]
    }
}
