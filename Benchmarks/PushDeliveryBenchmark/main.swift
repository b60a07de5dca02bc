import Cloudlet
import CloudletServer
import Foundation
import Synchronization

/// One job fanned out to N installations of one app, through the delivery service and a provider
/// that accepts every message at once: deliveries per second of the service itself (fan-out,
/// claims, result batches, `_PushStatus` updates), and the process's peak memory before and after.
/// Arguments: the number of installations (default 100,000), the send concurrency (default 64).

/// Accepts every message, counting them.
final class AcceptingProvider: PushProvider {
    let count = Atomic(0)

    func send(_ message: PushMessage) async -> PushOutcome {
        count.add(1, ordering: .relaxed)
        return .sent
    }
}

/// The process's peak resident memory (VmHWM) in MiB, on Linux.
func peakMemoryMiB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let installations = arguments.first ?? 100_000
let concurrency = arguments.dropFirst().first ?? 64
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-push-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let storage = try SQLiteObjectStorage(path: folder.appendingPathComponent("app.sqlite").path)

for n in 0..<installations {
    let id = String(format: "i%07d", n)
    try await storage.insert(
        ParseObject(
            className: "_Installation", objectId: id, createdAt: Date(), updatedAt: Date(),
            fields: ["deviceType": .string(n.isMultiple(of: 2) ? "ios" : "android"), "deviceToken": .string("token-\(id)")]),
        outbox: nil)
}
print("\(installations) installations written; peak memory \(String(format: "%.1f", peakMemoryMiB())) MiB")

let provider = AcceptingProvider()
let service = PushDeliveryService(
    apps: .fixed([PushDeliveryApp(id: "bench", storage: storage, providers: PushProviders(fallback: provider))]),
    configuration: PushDeliveryConfiguration(concurrency: concurrency), clock: SystemClock())
let job = PushJob(id: "job", status: .pending, source: "rest", query: [:], data: ["alert": "Hello"])
let started = ContinuousClock.now
try await storage.insert(ParseObject(className: "_PushStatus", objectId: job.id, acl: ParseACL(), fields: job.fields), outbox: nil)
let running = Task { await service.run() }
var status = ""
while !["succeeded", "failed", "expired"].contains(status) {
    try await Task.sleep(for: .milliseconds(20))
    status = try await storage.fetch("_PushStatus", id: job.id)?.fields["status"]?.stringValue ?? ""
}
let elapsed = ContinuousClock.now - started
running.cancel()
await running.value
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let sent = provider.count.load(ordering: .relaxed)
print(
    "job \(status): \(sent) sent in \(String(format: "%.2f", seconds)) s = \(Int(Double(sent) / seconds)) deliveries/s; "
        + "peak memory \(String(format: "%.1f", peakMemoryMiB())) MiB")
