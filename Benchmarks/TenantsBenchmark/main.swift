import Cloudlet
import CloudletCLI
import CloudletServer
import Foundation
import LoadSupport
import Logging
import NIOCore
import NIOPosix

// Two apps on one server: does one app's flood or spinning hooks reach the other?
//  1. Accuracy: `flood` is hammered at 4× its quota over 64 connections; its accepted requests in
//     every 10 s window against the quota (target ±5%).
//  2. Latency: `steady` at a normal paced load, alone and beside the same flood, in alternating
//     10 s slices (target p99 ≤ 1.25×). Two controls share the slices: `steady` beside `flood`
//     sending only its quota (what the neighbour's allowed work costs), and beside the flood aimed
//     at a server that does no work for it (`IdleFloodServer`: what the machine alone pays for it).
//     And `steady` beside `flood`'s hooks that hang, trap, allocate and print, each called 25 times
//     a second (target p99 ≤ 2×); what they print goes to standard error at level info, as `serve`
//     logs it.
//  3. Throughput: `steady` saving back to back, alone and while `flood`'s hooks all spin in its
//     workers until they are killed (target ≥ 0.8×).
// This executable is also the flood app's worker: the pool starts it as `<this> worker`.
//
//   swift run -c release cloudlet-tenants-benchmark [seconds] [flood quota/s] [steady rate/s] [faults] 2> hooks.log
//
// With `faults`, only `steady` alone and beside the faulty hooks are measured.

if CommandLine.arguments.dropFirst().first == "worker" {
    await CloudletCommand<TenantHooks>.runCommandLine()
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap(Double.init)
let onlyFaults = CommandLine.arguments.contains("faults")
let seconds = arguments.count > 0 ? arguments[0] : 30
let quotaRate = arguments.count > 1 ? arguments[1] : 500
let steadyRate = arguments.count > 2 ? arguments[2] : 500
let window = 10.0

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = label == "cloudlet.hooks" ? .info : .critical
    return handler
}
let logger = Logger(label: "cloudlet.tenants-benchmark")
// The steady app's load and the flooding app's each have a client thread of their own, so that
// the flood's answers never queue in front of the steady app's on the client side.
let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let floodClients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
// The flood's clients stand for machines elsewhere: their thread runs at nice 19, so that what it
// costs to send the flood does not take the two cores from the server that must answer it. The
// flood's lines print what it sent, to show that it still sends 4× the quota.
try await floodClients.next().submit { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }.get()
let quota = RateLimitQuota(perSecond: quotaRate, burst: max(1, Int(quotaRate / 20)))
let (server, _) = try await TenantsServer.start(quota: quota, logger: logger, hookLogger: Logger(label: "cloudlet.hooks"))
let idleServerThread = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let idleFloodServer = try await IdleFloodServer.start(on: idleServerThread, logger: logger)
print("$ swift run -c release cloudlet-tenants-benchmark \(CommandLine.arguments.dropFirst().joined(separator: " "))")
print("flood quota \(Int(quotaRate))/s burst \(quota.count); steady load \(Int(steadyRate))/s paced over 16 connections; \(Int(seconds)) s runs")

func steadyPaced(seconds: Double) async throws -> LoadResult {
    try await LoadGenerator(host: "127.0.0.1", port: server.port, connections: 16, warmup: 1, seconds: seconds, rate: steadyRate)
        .run(TenantsServer.saves(TenantsServer.steady, port: server.port), on: clients)
}

func steadyBackToBack(seconds: Double) async throws -> LoadResult {
    try await LoadGenerator(host: "127.0.0.1", port: server.port, connections: 16, warmup: 1, seconds: seconds)
        .run(TenantsServer.saves(TenantsServer.steady, port: server.port), on: clients)
}

/// A phase's rate, p50, p99, errors and steal, its window `seconds` long; `steal` when the phase
/// merges several windows.
func describe(_ result: LoadResult, _ seconds: Double, steal: Double? = nil) -> String {
    String(
        format: "%7.0f/s  p50 %6.2f ms  p99 %6.2f ms  errors %d  steal %4.1f%%", Double(result.accepted) / seconds,
        result.percentileMilliseconds(0.5), result.percentileMilliseconds(0.99), result.errors,
        (steal ?? result.stealShare ?? 0) * 100)
}

/// The flood app's saves at `times` its quota over `connections`, for `seconds`, aimed at the
/// server on `port`: by default the flood, 4× over 64 connections.
func floodRun(seconds: Double, times: Double = 4, connections: Int = 64, port: Int = server.port) async throws -> LoadResult {
    try await LoadGenerator(host: "127.0.0.1", port: port, connections: connections, warmup: 1, seconds: seconds, rate: times * quotaRate)
        .run(TenantsServer.saves(TenantsServer.flood, port: port), on: floodClients)
}

/// The flood app's misbehaving hooks (``TenantHooks/faults``), each called 25 times a second over
/// 4 connections for `seconds` (hanging calls hold their connection, so fewer of those); their
/// answers merged. Paced, not back to back: once a hook's circuit opens its calls are refused at
/// once, and back-to-back callers would then be a flood of requests, which phase 2 measures apart.
func faultRun(seconds: Double) async throws -> LoadResult {
    try await withThrowingTaskGroup(of: LoadResult.self) { group in
        for fault in TenantHooks.faults {
            group.addTask {
                try await LoadGenerator(host: "127.0.0.1", port: server.port, connections: 4, warmup: 0, seconds: seconds, rate: 25)
                    .run(TenantsServer.calls(fault, port: server.port), on: floodClients)
            }
        }
        return try await LoadResult(merging: group.reduce(into: []) { $0.append($1) })
    }
}

// 1: the flood at 4× its quota; its accepted requests in every 10 s window.
if !onlyFaults {
    let flood = try await floodRun(seconds: seconds)
    print("flood at 4× the quota: \(flood.accepted) accepted, \(flood.refused) refused (429), \(flood.errors) other")
    let perWindow = Int(window)
    for start in stride(from: 0, to: Int(seconds), by: perWindow) {
        let accepted = flood.acceptedPerSecond[start..<min(start + perWindow, Int(seconds))].reduce(0, +)
        let expected = quotaRate * Double(min(perWindow, Int(seconds) - start))
        print(String(format: "  window %3d–%3d s: %6d accepted, %.3f of the quota (target 0.95–1.05)", start, start + perWindow, accepted, Double(accepted) / expected))
    }
}

// 2: the steady app paced, alone, beside the flood, and beside the two controls, in 10 s slices
// (`seconds` of each in all). The steady app's own p99 rises as its tables grow, so with one phase
// after the other the later phase would be charged for the growth; each slice runs the four in a
// rotated order, so that none is always the later, with the larger tables.
let slices = max(1, Int((seconds / window).rounded()))
/// What runs beside the steady app's paced load.
enum Company: CaseIterable {
    /// Nothing.
    case alone
    /// The flood app at its quota, paced over 16 connections as the steady app is: no 429s.
    case atQuota
    /// The flood: 4× the quota over 64 connections.
    case flood
    /// The same flood aimed at the idle server.
    case idleFlood
    /// The flood app's hooks that hang, trap, allocate and print (or those `FAULTS` names).
    case faults

    var title: String {
        switch self {
        case .alone: "alone"
        case .atQuota: "beside the other app at its quota"
        case .flood: "beside the flood"
        case .idleFlood: "beside the flood on the idle server"
        case .faults: "beside hooks that " + TenantHooks.faults.joined(separator: ", ")
        }
    }
}
var paced: [Company: [LoadResult]] = [:]
/// The CPU this process (the server, its output relay and the load generators) used in each
/// company's slices, in seconds, and their length.
var processCPU: [Company: (seconds: Double, over: Double)] = [:]
/// This process's CPU time so far, its ended threads included, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return [usage.ru_utime, usage.ru_stime].map { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }.reduce(0, +)
}
/// What the flood app's clients sent per second in each slice beside them.
var neighbourRates: [Company: [Double]] = [:]
/// One 10 s slice of the steady app's paced load in `company`, and what the neighbour sent per second.
func steadyPaced(beside company: Company) async throws -> (steady: LoadResult, neighbourRate: Double?) {
    let neighbour: Task<LoadResult, any Error>? =
        switch company {
        case .alone: nil
        case .atQuota: Task { try await floodRun(seconds: window, times: 1, connections: 16) }
        case .flood: Task { try await floodRun(seconds: window) }
        case .idleFlood: Task { try await floodRun(seconds: window, port: idleFloodServer.port) }
        case .faults: Task { try await faultRun(seconds: window) }
        }
    let steady = try await steadyPaced(seconds: window)
    let sent = try await neighbour?.value
    return (steady, sent.map { Double($0.accepted + $0.refused + $0.errors) / window })
}
let companies: [Company] = onlyFaults ? [.alone, .faults] : Company.allCases
for slice in 0..<slices {
    for step in 0..<companies.count {
        let company = companies[(slice + step) % companies.count]
        let (cpuBefore, started) = (processCPUSeconds(), ContinuousClock.now)
        let (steady, neighbourRate) = try await steadyPaced(beside: company)
        let cpu = processCPU[company] ?? (0, 0)
        processCPU[company] = (cpu.seconds + processCPUSeconds() - cpuBefore, cpu.over + (ContinuousClock.now - started) / .seconds(1))
        paced[company, default: []].append(steady)
        if let neighbourRate { neighbourRates[company, default: []].append(neighbourRate) }
    }
    let line = companies.map { company in
        let result = paced[company]![slice]
        let sent = neighbourRates[company].map { String(format: ", it sent %.0f/s", $0[slice]) } ?? ""
        return company.title + String(format: " %.2f ms (steal %.1f%%", result.percentileMilliseconds(0.99), (result.stealShare ?? 0) * 100) + sent + ")"
    }
    print("  slice \(slice + 1): steady p99 " + line.joined(separator: ", "))
}

/// Slices merged: every latency, and the slices' mean steal.
func merged(_ slices: [LoadResult]) -> (result: LoadResult, steal: Double) {
    (LoadResult(merging: slices), slices.map { $0.stealShare ?? 0 }.reduce(0, +) / Double(slices.count))
}
let alonePaced = merged(paced[.alone]!)
let aloneP99 = alonePaced.result.percentileMilliseconds(0.99)
for company in companies {
    let phase = merged(paced[company]!)
    print("steady \(company.title), paced: \(describe(phase.result, window * Double(slices), steal: phase.steal))")
}
print(
    "  process CPU (server and load generators), cores: "
        + companies.map { $0.title + String(format: " %.2f", processCPU[$0]!.seconds / processCPU[$0]!.over) }.joined(separator: ", "))
for company in companies where company != .alone {
    let target = ([.flood: " (target ≤ 1.25)", .faults: " (target ≤ 2)"] as [Company: String])[company] ?? ""
    let ratio = merged(paced[company]!).result.percentileMilliseconds(0.99) / aloneP99
    print("  steady p99 \(company.title) / alone: " + String(format: "%.2f", ratio) + target)
}

// 3: the steady app's throughput while the flood app's hooks spin.
if !onlyFaults {
    let aloneBackToBack = try await steadyBackToBack(seconds: seconds / 3)
    print("steady alone, back to back: \(describe(aloneBackToBack, seconds / 3))")
    async let spinRun = LoadGenerator(host: "127.0.0.1", port: server.port, connections: 8, warmup: 1, seconds: seconds / 3)
        .run(TenantsServer.calls("spin", port: server.port), on: floodClients)
    let duringSpin = try await steadyBackToBack(seconds: seconds / 3)
    let spins = try await spinRun
    print("steady while hooks spin:    \(describe(duringSpin, seconds / 3))")
    print("  spin calls answered: \(spins.accepted + spins.errors + spins.refused) (each ends at its 1 s limit)")
    print(String(format: "  steady throughput during / alone: %.2f (target ≥ 0.80)", Double(duringSpin.accepted) / Double(aloneBackToBack.accepted)))
}

try await server.stop()
try await idleFloodServer.stop()
try await idleServerThread.shutdownGracefully()
try await clients.shutdownGracefully()
try await floodClients.shutdownGracefully()
