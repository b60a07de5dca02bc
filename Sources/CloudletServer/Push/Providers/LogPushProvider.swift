import Cloudlet
import CloudletRuntime
import Logging

/// Sends nothing: logs each notification (app, device type, the token's first 8 characters, the
/// payload) and answers ``PushOutcome/sent``. The default provider, for development.
public struct LogPushProvider: PushProvider {
    private let appId: String
    private let logger: Logger

    /// A provider logging `appId`'s notifications to `logger` at level info.
    public init(appId: String, logger: Logger) {
        self.appId = appId
        self.logger = logger
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        logger.info(
            "push notification (log provider)",
            metadata: [
                "app": "\(appId)", "deviceType": "\(message.deviceType)", "token": "\(message.token.prefix(8))…",
                "push": "\(message.id)", "payload": "\(JSONWriter.string(.object(message.data)))",
            ])
        return .sent
    }
}
