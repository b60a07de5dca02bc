import Cloudlet
import CloudletRuntime
import Crypto
import Foundation
import Logging
import NIOSSL

extension PushProviders {
    /// The providers `settings` describe for app `appId`, their keys read from the files it names.
    /// Throws 142 naming the member whose file cannot be used.
    public init(settings: PushSettings, appId: String, clock: any CloudletClock, logger: Logger) throws {
        let keys = try PushKeys(settings)
        let trustRoots = keys.trustRoots
        var byDeviceType: [String: any PushProvider] = [:]
        if let apns = settings.apns, let key = keys.apnsKey {
            let provider = APNsProvider(
                key: key, keyId: apns.keyId, teamId: apns.teamId, topic: apns.topic, baseURL: apns.url ?? apns.environment.url,
                trustRoots: trustRoots, clock: clock)
            for deviceType in PushSettings.apnsDeviceTypes { byDeviceType[deviceType] = provider }
        }
        if let fcm = settings.fcm, let account = keys.fcmAccount {
            let provider = FCMProvider(
                account: account, baseURL: fcm.url ?? FCMProvider.defaultURL, trustRoots: trustRoots, clock: clock, logger: logger)
            for deviceType in PushSettings.fcmDeviceTypes { byDeviceType[deviceType] = provider }
        }
        let fallback: (any PushProvider)? =
            if let url = settings.webhookURL {
                WebhookPushProvider(url: url, trustRoots: trustRoots)
            } else if settings.log {
                LogPushProvider(appId: appId, logger: logger)
            } else {
                nil
            }
        self.init(byDeviceType: byDeviceType, fallback: fallback)
    }
}

extension PushSettings {
    /// Reads every file the settings name, throwing 142 naming the member whose file cannot be used.
    public func validate() throws {
        _ = try PushKeys(self)
    }
}

/// The keys and certificates the files of ``PushSettings`` hold.
private struct PushKeys {
    var apnsKey: P256.Signing.PrivateKey?
    var fcmAccount: FCMServiceAccount?
    var trustRoots: NIOSSLTrustRoots = .default

    init(_ settings: PushSettings) throws {
        if let apns = settings.apns {
            guard let text = FileManager.default.contents(atPath: apns.keyFile).flatMap({ String(data: $0, encoding: .utf8) }) else {
                throw AppSettings.invalid("push.apns.keyFile: cannot read \(apns.keyFile)")
            }
            do {
                apnsKey = try P256.Signing.PrivateKey(pemRepresentation: text)
            } catch {
                throw AppSettings.invalid("push.apns.keyFile: \(apns.keyFile) is not a P-256 private key in PEM form (.p8)")
            }
        }
        if let fcm = settings.fcm {
            do {
                fcmAccount = try FCMServiceAccount(contentsOfFile: fcm.serviceAccountFile)
            } catch {
                throw AppSettings.invalid("push.fcm.serviceAccountFile: \(error)")
            }
        }
        if settings.caFile != nil { trustRoots = try .setting(settings.caFile, member: "push.caFile") }
    }
}
