import Cloudlet
import CloudletServer
import Crypto
import Foundation
import PushStandIns

/// One push job fanned out to N installations of a real app database by its work loop, in
/// three scenarios: (a) a provider that accepts at once (the service's own ceiling), (b) the APNs
/// provider (HTTP/2, TLS, ES256 token) against the APNs stand-in in another process, (c) the same
/// with 10% of the tokens answering 410 `Unregistered` and 5% answering 503 once. Prints for each
/// deliveries/s, its ratio to (a), the `_PushStatus` counts and the delivery process's peak memory;
/// exits with status 1 if a count is wrong.
/// `cloudlet-push-benchmark [installations] [concurrency] [connections]` (default 100,000 and the
/// server's defaults: 32 runs at once, 4 HTTP/2 connections to the stand-in).
if CommandLine.arguments.dropFirst().first == StandInProcess.flag {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 2 else { fatalError("usage: \(StandInProcess.flag) <key.p8> <certificate.pem>") }
    try await StandInProcess.serve(keyFile: arguments[0], certificateFile: arguments[1])
    exit(0)
}

let numbers = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let installations = max(numbers.first ?? 100_000, 1)
let concurrency = max(numbers.dropFirst().first ?? WorkSettings().concurrency, 1)
let connections = numbers.dropFirst(2).first.map { max($0, 1) }
let keys = try PushTestKeys()
defer { keys.remove() }
let standIn = try StandInProcess(keyFile: keys.apnsKeyFile, folder: keys.folder)
let apns = APNsProvider(
    key: keys.apnsKey, keyId: StandInProcess.keyId, teamId: StandInProcess.teamId, topic: StandInProcess.topic, baseURL: standIn.url,
    trustRoots: standIn.trustRoots, connections: connections, clock: SystemClock())
let unregistered = BenchmarkTokens.unregisteredCount(of: installations)
let clean = ExpectedCounts(numSent: installations, numFailed: 0, failedPerReason: [:], retried: 0)
let scenarios = [
    Scenario(number: 1, name: "(a) accepting provider", provider: AcceptingProvider(), expected: clean),
    Scenario(number: 2, name: "(b) APNs stand-in", provider: apns, expected: clean),
    Scenario(
        number: BenchmarkTokens.failingScenario, name: "(c) APNs, 10% 410, 5% 503 once", provider: apns,
        expected: ExpectedCounts(
            numSent: installations - unregistered, numFailed: unregistered, failedPerReason: unregistered > 0 ? ["Unregistered": unregistered] : [:],
            retried: BenchmarkTokens.unavailableOnceCount(of: installations))),
]
print(
    "\(installations) installations, \(concurrency) sends at once, \(connections.map(String.init) ?? "the default") APNs connections, "
        + "load average \(loadAverage())")
var baseline: Double?
var wrong = false
for scenario in scenarios {
    let result = try await scenario.run(installations: installations, concurrency: concurrency, in: keys.folder, standInPID: standIn.pid)
    let rate = Double(installations) / result.seconds
    baseline = baseline ?? rate
    var line = "\(scenario.name): \(Int(rate)) deliveries/s (\(String(format: "%.2f", rate / baseline!))× baseline) in \(String(format: "%.2f", result.seconds)) s"
    if scenario.expected.retried > 0 {
        line += "; first attempts \(Int(Double(installations - scenario.expected.retried) / result.firstAttemptSeconds))/s in "
            + "\(String(format: "%.2f", result.firstAttemptSeconds)) s, \(scenario.expected.retried) retried after the backoff"
    }
    let counts = result.counts
    line += "; \(result.status): numSent \(counts.numSent), numFailed \(counts.numFailed), failedPerReason \(counts.failedPerReason)"
    line += "; peak memory \(String(format: "%.1f", result.peakMiB)) MiB"
    let microseconds = { (seconds: Double) in Int((seconds * 1e6 / Double(installations)).rounded()) }
    let perDelivery = microseconds(result.deliveryCPUSeconds + result.standInCPUSeconds)
    line += "; CPU per delivery \(microseconds(result.deliveryCPUSeconds)) µs delivery side + \(microseconds(result.standInCPUSeconds)) µs stand-in"
    let cores = ProcessInfo.processInfo.activeProcessorCount
    line += " (\(cores) cores at that cost: \(perDelivery > 0 ? cores * 1_000_000 / perDelivery : 0)/s)"
    line += "; steal \(String(format: "%.1f", result.stealShare * 100))% of the machine's CPU time"
    print(line)
    if counts != scenario.expected || result.status != "succeeded" {
        print("  WRONG: expected numSent \(scenario.expected.numSent), numFailed \(scenario.expected.numFailed), failedPerReason \(scenario.expected.failedPerReason)")
        wrong = true
    }
}
await apns.shutdown()
standIn.stop()
print("load average \(loadAverage())")
if wrong { exit(1) }

/// The 1, 5 and 15 minute load averages, as `uptime` prints them.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
}
