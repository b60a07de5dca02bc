import Cloudlet
import CloudletCLI
import CloudletServer
import Foundation
import Logging

// Compares hooks in worker processes with hooks in-process: the cost one no-op `beforeSave` call adds
// (p50/p99), and saves per second with a `beforeSave` + `afterSave` pair through a whole runtime.
// This executable is also its own worker: the pool starts it as `<this> worker`.
//
//   swift run -c release cloudlet-isolation-benchmark [calls] [seconds] [concurrency]

if CommandLine.arguments.dropFirst().first == "worker" {
    await CloudletCommand<BenchmarkHooks>.runCommandLine()
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap(Double.init)
let calls = arguments.count > 0 ? Int(arguments[0]) : 5000
let seconds = arguments.count > 1 ? arguments[1] : 5
let concurrency = arguments.count > 2 ? Int(arguments[2]) : 16

var logger = Logger(label: "cloudlet.isolation-benchmark")
logger.logLevel = .error
let pool = try await WorkerPool.launch(
    WorkerPoolConfiguration(appId: "bench", executablePath: Bundle.main.executablePath ?? CommandLine.arguments[0]), logger: logger)
let supervision = Task { try await pool.run() }
let executors: [(String, any HookExecutor)] = [
    ("in-process", InProcessHookExecutor(registry: BenchmarkHooks.registry())), ("process", ProcessHookExecutor(pool: pool)),
]

print("no-op beforeSave, \(calls) sequential calls (after \(calls / 10) to warm up):")
var medians: [Double] = []
for (name, executor) in executors {
    _ = try await Measurements.beforeSaveLatencies(executor, calls: calls / 10)
    let latencies = try await Measurements.beforeSaveLatencies(executor, calls: calls)
    medians.append(latencies.microseconds(at: 0.5))
    print("  \(name.padding(toLength: 10, withPad: " ", startingAt: 0))  p50 \(String(format: "%8.1f", latencies.microseconds(at: 0.5))) µs  p99 \(String(format: "%8.1f", latencies.microseconds(at: 0.99))) µs")
}
print(String(format: "  added per call by process mode (p50): %.1f µs (target ≤ 100)", medians[1] - medians[0]))

print("saves/s with beforeSave + afterSave, \(concurrency) callers, \(seconds) s each:")
var rates: [Double] = []
for (name, executor) in executors {
    let rate = try await Measurements.pairedSavesPerSecond(executor, concurrency: concurrency, seconds: seconds)
    rates.append(rate)
    print("  \(name.padding(toLength: 10, withPad: " ", startingAt: 0))  \(String(format: "%8.0f", rate)) saves/s")
}
print(String(format: "  process mode / in-process: %.0f%% (target ≥ 60%%)", rates[1] / rates[0] * 100))
supervision.cancel()
_ = await supervision.result
