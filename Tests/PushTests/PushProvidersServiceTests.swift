import Cloudlet
import CloudletServer
import PushStandIns
import Testing

/// An app's push providers run as a service: their connections close when it ends, whether it is
/// cancelled or shut down gracefully, with no call by hand.
@Suite struct PushProvidersServiceTests {
    @Test func cancellingTheProvidersServiceClosesTheirConnections() async throws {
        let fixture = try await APNsFixture()
        defer { fixture.keys.remove() }
        let providers = PushProviders(byDeviceType: ["ios": fixture.provider], fallback: nil)
        let service = Task { await providers.run() }
        #expect(await fixture.provider.send(fixture.message()) == .sent)
        #expect(fixture.apns.server.openConnectionCount == 1)

        service.cancel()
        await service.value
        let giveUp = ContinuousClock.now + .seconds(5)
        while fixture.apns.server.openConnectionCount > 0, ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(fixture.apns.server.openConnectionCount == 0)
        try await fixture.apns.stop()
    }
}
