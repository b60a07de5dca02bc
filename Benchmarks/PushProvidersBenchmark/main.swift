import Cloudlet
import CloudletServer
import CloudletTesting
import Crypto
import Foundation
import PushStandIns

/// How many notifications a second the APNs provider gets through the APNs stand-in, over one
/// HTTP/2 connection: `cloudlet-push-providers-benchmark [count] [concurrent sends]` (default
/// 100,000 and 100). Exits with status 1 if any notification was not accepted.
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.first ?? 100_000
let concurrency = arguments.dropFirst().first ?? 100
let keys = try PushTestKeys()
let clock = ManualClock()
let apns = try await APNsStandIn(
    publicKey: keys.apnsKey.publicKey, keyId: "BENCHKEY12", teamId: "TEAM123456", topic: "com.example.app", now: { clock.now },
    recordsNotifications: false)
let provider = APNsProvider(
    key: keys.apnsKey, keyId: "BENCHKEY12", teamId: "TEAM123456", topic: "com.example.app", baseURL: apns.server.url,
    trustRoots: apns.server.trustRoots, clock: clock)
let start = ContinuousClock.now
let sent = await sendAll(count: count, concurrency: concurrency, through: provider)
let elapsed = start.duration(to: .now)
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(
    "\(sent) of \(count) APNs notifications accepted in \(String(format: "%.2f", seconds)) s: \(Int(Double(sent) / seconds))/s, "
        + "\(concurrency) at once, \(apns.server.connectionCount) connection(s), \(apns.server.streamCount) streams")
await provider.shutdown()
try await apns.stop()
keys.remove()
if sent != count || apns.acceptedCount != count { exit(1) }

/// Sends `count` alerts to distinct tokens, `concurrency` at once; answers how many were sent.
func sendAll(count: Int, concurrency: Int, through provider: APNsProvider) async -> Int {
    await withTaskGroup(of: Int.self) { group in
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
}
