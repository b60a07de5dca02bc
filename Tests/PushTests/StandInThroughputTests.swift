import Cloudlet
import CloudletServer
import CloudletTesting
import Crypto
import Foundation
import PushStandIns
import Testing

/// How many notifications a second the APNs provider gets through the APNs stand-in. Runs only
/// with `PUSH_THROUGHPUT=<count>` set, as a measurement, `PUSH_CONCURRENCY` sends at once (default
/// 100): `PUSH_THROUGHPUT=100000 swift test --skip-build --filter StandInThroughputTests`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["PUSH_THROUGHPUT"] != nil))
struct StandInThroughputTests {
    @Test func apnsNotificationsPerSecond() async throws {
        let count = Int(ProcessInfo.processInfo.environment["PUSH_THROUGHPUT"] ?? "") ?? 100_000
        let keys = try PushTestKeys()
        let clock = ManualClock()
        let apns = try await APNsStandIn(
            publicKey: keys.apnsKey.publicKey, keyId: "TESTKEY123", teamId: "TEAM123456", topic: "com.example.app", now: { clock.now },
            recordsNotifications: false)
        let provider = APNsProvider(
            key: keys.apnsKey, keyId: "TESTKEY123", teamId: "TEAM123456", topic: "com.example.app", baseURL: apns.server.url,
            trustRoots: apns.server.trustRoots, clock: clock)
        let concurrency = Int(ProcessInfo.processInfo.environment["PUSH_CONCURRENCY"] ?? "") ?? 100
        let start = ContinuousClock.now
        let sent = await withTaskGroup(of: Int.self) { group in
            for lane in 0..<concurrency {
                group.addTask {
                    var sent = 0
                    for index in stride(from: lane, to: count, by: concurrency) {
                        let message = PushMessage(
                            id: UUID().uuidString, deviceType: "ios", token: String(format: "%064x", index), data: ["alert": "Hi", "badge": 1])
                        if await provider.send(message) == .sent { sent += 1 }
                    }
                    return sent
                }
            }
            return await group.reduce(0, +)
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("push throughput: \(sent) of \(count) APNs notifications in \(String(format: "%.2f", seconds)) s = \(Int(Double(sent) / seconds))/s over \(apns.server.connectionCount) connection(s)")
        #expect(sent == count)
        #expect(apns.acceptedCount == count)
        await provider.shutdown()
        try await apns.stop()
        keys.remove()
    }
}
