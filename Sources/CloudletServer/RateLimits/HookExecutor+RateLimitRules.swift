import Cloudlet
import CloudletRuntime

extension HookExecutor {
    /// The rate limit the function `name` declares, as rules for the app's limiter.
    func rateLimitRules(ofFunction name: String) -> [RateLimitRule] {
        guard let limit = hook(.function, name)?.rateLimit else { return [] }
        return [
            RateLimitRule(
                requestPath: PathPattern("/functions/" + name) ?? PathPattern("/functions/*")!,
                quota: RateLimitQuota(count: limit.count, window: limit.window),
                zone: limit.scope)
        ]
    }
}
