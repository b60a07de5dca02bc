import CloudletServer
import Foundation

extension ServeCommand {
    /// The server's configuration from the settings' flags, variables and config file.
    static func configuration(_ settings: SettingsReader) throws -> ServerConfiguration {
        var configuration = ServerConfiguration(
            host: try settings.read(ServeSettings.host) { $0 },
            port: try settings.integer(ServeSettings.port),
            dataDirectory: try settings.read(ServeSettings.data) { $0 },
            mountPath: try settings.read(ServeSettings.mountPath) { $0 },
            maximumBodyBytes: try settings.integer(ServeSettings.maxBodyBytes),
            durability: try settings.read(ServeSettings.durability) { SQLiteAppDatabase.Durability(rawValue: $0) },
            maximumResponseBytes: try settings.integer(ServeSettings.maxResponseBytes),
            maximumObjectBytes: try settings.integer(ServeSettings.maxObjectBytes),
            trustedProxies: try TrustedProxies(
                settings.read(ServeSettings.trustedProxies, default: []) { text in
                    text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                }),
            hookRunRetention: try settings.integer(ServeSettings.hookLogRetention))
        configuration.database = try settings.optional(ServeSettings.database) { $0 }
        configuration.nodes = try settings.integer(ServeSettings.nodes)
        configuration.publicURL = try settings.optional(ServeSettings.publicUrl) { $0 }
        configuration.minimumFreeDiskBytes = Int64(try settings.integer(ServeSettings.minFreeDiskMb)) << 20
        configuration.connections = ConnectionLimits(
            maximumConnections: try settings.optionalInteger(ServeSettings.maxConnections),
            maximumConnectionsPerAddress: try settings.integer(ServeSettings.maxConnectionsPerAddress),
            idleTimeout: .milliseconds(try settings.integer(ServeSettings.idleTimeoutMs)),
            headerTimeout: .milliseconds(try settings.integer(ServeSettings.headerTimeoutMs)),
            minimumBodyBytesPerSecond: try settings.integer(ServeSettings.minBodyRate),
            descriptorReserve: try settings.integer(ServeSettings.descriptorReserve),
            requestsPerAddress: try settings.read(ServeSettings.maxRequestsPerAddress, quota))
        configuration.liveQuery = try liveQuery(settings)
        return configuration
    }

    /// The LiveQuery settings from the flags, variables and config file.
    private static func liveQuery(_ settings: SettingsReader) throws -> LiveQueryServerSettings {
        var liveQuery = LiveQueryServerSettings()
        liveQuery.path = try settings.optional(ServeSettings.liveQueryPath) { $0 }
        liveQuery.maximumConnectionsPerApp = try settings.integer(ServeSettings.liveQueryMaxConnections)
        liveQuery.maximumSubscriptionsPerConnection = try settings.integer(ServeSettings.liveQueryMaxSubscriptions)
        liveQuery.messagesPerConnection = try settings.read(ServeSettings.liveQueryMessageRate) { try? RateLimitPolicy.quota(text: $0) }
        liveQuery.maximumMessageBytes = try settings.integer(ServeSettings.liveQueryMaxMessageBytes)
        liveQuery.maximumQueuedBytes = try settings.integer(ServeSettings.liveQueryMaxQueuedBytes)
        liveQuery.connectTimeout = .milliseconds(try settings.integer(ServeSettings.liveQueryConnectTimeoutMs))
        return liveQuery
    }
}

/// The quota `text` writes (`40/s,burst=80`, `600/min`, or `off` for nil), or nil if it writes none.
private func quota(_ text: String) -> RateLimitQuota?? {
    do {
        return .some(try RateLimitPolicy.quota(text: text))
    } catch {
        return nil
    }
}
