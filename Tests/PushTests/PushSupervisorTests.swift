import Cloudlet
import CloudletServer
import Foundation
import Logging
import PushStandIns
import Testing

@Suite struct PushSupervisorTests {
    @Test func theSupervisorBuildsAnAppsProvidersFromItsSettingsAndSwapsThem() async throws {
        let keys = try PushTestKeys()
        defer { keys.remove() }
        var logger = Logger(label: "cloudlet")
        logger.logLevel = .critical
        let server = try await CloudletApplication(
            configuration: ServerConfiguration(dataDirectory: keys.folder.appendingPathComponent("data").path, passwordHashCost: 4),
            apps: [AppDefinition(id: "shop", executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: "c", masterKey: "m")],
            launcher: AppLauncher(ownHooks: HookRegistry(), logger: logger, hookLogger: logger), logger: logger)
        #expect(server.apps.app("shop")?.pushProviders.provider(for: "ios") is LogPushProvider)

        let apns = PushSettings.APNs(
            keyFile: keys.apnsKeyFile, keyId: "TESTKEY123", teamId: "TEAM123456", topic: "com.example.app", environment: .sandbox)
        try await server.registry.update("shop") { $0.push = PushSettings(apns: apns, log: false) }
        #expect(await server.supervisor.reload().isEmpty)
        let withApns = try #require(server.apps.app("shop")?.pushProviders)
        #expect(withApns.provider(for: "ios") is APNsProvider)
        #expect(withApns.provider(for: "android") == nil)

        // A key file that is gone by the time the change is applied: refused, the app keeps its providers.
        try FileManager.default.removeItem(atPath: keys.apnsKeyFile)
        try await server.registry.update("shop") { $0.push.apns?.topic = "com.example.other" }
        let refused = await server.supervisor.reload()
        #expect((refused["shop"] as? ParseError)?.message == "push.apns.keyFile: cannot read \(keys.apnsKeyFile)")
        #expect(server.apps.app("shop")?.pushProviders.provider(for: "ios") is APNsProvider)

        try await server.registry.update("shop") { $0.push = PushSettings() }
        #expect(await server.supervisor.reload().isEmpty)
        #expect(server.apps.app("shop")?.pushProviders.provider(for: "ios") is LogPushProvider)
        await withApns.shutdown()
    }
}
