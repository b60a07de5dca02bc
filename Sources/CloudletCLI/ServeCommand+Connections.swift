import ArgumentParser
import Cloudlet
import CloudletServer

/// The `serve` flags of ``ConnectionLimits``: bounds on connections, their timeouts and the
/// descriptors kept in reserve. Each also comes from `CLOUDLET_<NAME>` or the config file's member.
struct ConnectionOptions: ParsableArguments {
    /// The config-file members these flags read.
    static let members: Set<String> = [
        "maxConnections", "maxConnectionsPerAddress", "idleTimeoutMs", "headerTimeoutMs", "minBodyRate", "descriptorReserve", "maxRequestsPerAddress",
    ]

    @Option(help: "Most connections open at once (CLOUDLET_MAX_CONNECTIONS). Default: half the descriptor limit.")
    var maxConnections: Int?
    @Option(help: "Most connections open at once from one client address (CLOUDLET_MAX_CONNECTIONS_PER_ADDRESS). Default 128.")
    var maxConnectionsPerAddress: Int?
    @Option(help: "Milliseconds a connection may wait for its next request (CLOUDLET_IDLE_TIMEOUT_MS). Default 30000.")
    var idleTimeoutMs: Int?
    @Option(help: "Milliseconds a request's head may take once begun (CLOUDLET_HEADER_TIMEOUT_MS). Default 10000.")
    var headerTimeoutMs: Int?
    @Option(help: "Slowest average rate of a request body in bytes a second, after the header timeout (CLOUDLET_MIN_BODY_RATE). Default 1024.")
    var minBodyRate: Int?
    @Option(help: "File descriptors never given to connections or apps (CLOUDLET_DESCRIPTOR_RESERVE). Default 128.")
    var descriptorReserve: Int?
    @Option(help: "Pace of requests from one client address, as N/s,burst=M or off (CLOUDLET_MAX_REQUESTS_PER_ADDRESS). Default 1000/s,burst=2000.")
    var maxRequestsPerAddress: String?

    func validate() throws {
        let given = [
            ("--max-connections", maxConnections), ("--max-connections-per-address", maxConnectionsPerAddress),
            ("--idle-timeout-ms", idleTimeoutMs), ("--header-timeout-ms", headerTimeoutMs), ("--min-body-rate", minBodyRate),
        ]
        if let (flag, _) = given.first(where: { ($0.1 ?? 1) < 1 }) { throw ValidationError("\(flag) takes a whole number, 1 or more") }
        if let descriptorReserve, descriptorReserve < 0 { throw ValidationError("--descriptor-reserve takes a whole number, 0 or more") }
    }

    /// The limits from the flags, variables and file in `settings`.
    func limits(_ settings: ServeSettings) throws -> ConnectionLimits {
        let defaults = ConnectionLimits()
        let maximum = try settings.value(maxConnections, "maxConnections", default: 0) { positive($0) }
        return ConnectionLimits(
            maximumConnections: maximum > 0 ? maximum : nil,
            maximumConnectionsPerAddress: try settings.value(
                maxConnectionsPerAddress, "maxConnectionsPerAddress", default: defaults.maximumConnectionsPerAddress) { positive($0) },
            idleTimeout: .milliseconds(
                try settings.value(idleTimeoutMs, "idleTimeoutMs", default: Self.milliseconds(defaults.idleTimeout)) { positive($0) }),
            headerTimeout: .milliseconds(
                try settings.value(headerTimeoutMs, "headerTimeoutMs", default: Self.milliseconds(defaults.headerTimeout)) { positive($0) }),
            minimumBodyBytesPerSecond: try settings.value(minBodyRate, "minBodyRate", default: defaults.minimumBodyBytesPerSecond) {
                positive($0)
            },
            descriptorReserve: try settings.value(descriptorReserve, "descriptorReserve", default: defaults.descriptorReserve) {
                Int($0).flatMap { $0 >= 0 ? $0 : nil }
            },
            requestsPerAddress: try settings.value(maxRequestsPerAddress, "maxRequestsPerAddress", default: "1000/s,burst=2000") { $0 }
                .rateLimitQuota())
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// `text` as a whole number of 1 or more, if it is one.
private func positive(_ text: String) -> Int? {
    Int(text).flatMap { $0 >= 1 ? $0 : nil }
}

extension String {
    /// The quota this text writes (`40/s,burst=80`, `600/min` or `off`), as `--rate-limit` and
    /// `--max-requests-per-address` read it; a usage error otherwise.
    func rateLimitQuota() throws -> RateLimitQuota? {
        do {
            return try RateLimitPolicy.quota(text: self)
        } catch let error as ParseError {
            throw ValidationError(error.message)
        }
    }
}
