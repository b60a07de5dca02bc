import Foundation
import LoadSupport

/// Prints the benchmark's findings as they come: the command line, one table line per run, and
/// at the end each scenario's figures against the bare baseline's, with the targets.
struct BenchmarkReport {
    /// One measured run: a scenario at a number of connections.
    struct Run {
        let scenario: BenchmarkScenario
        let connections: Int
        let result: LoadResult
        let seconds: Double

        var savesPerSecond: Double { Double(result.accepted) / seconds }
    }

    /// What a comparison measures of a run.
    private enum Measure: String {
        case throughput = "saves/s"
        case p50 = "p50"
        case p99 = "p99"
    }

    /// A figure of a scenario against the same figure of the bare baseline in this run, and its target:
    /// at least `target` for throughput, at most `target` for latencies.
    private struct Comparison {
        let scenario: BenchmarkScenario
        let measure: Measure
        let connections: Int
        let target: Double
    }

    /// The hook path's targets: a beforeSave + afterSave pair in worker processes at ≥ 75% of the
    /// bare baseline's saves/s at 64 connections, p50 ≤ 1.2× at 1 connection, p99 ≤ 2× at 64.
    /// In-process figures are shown against the same targets for comparison.
    private static let comparisons = [BenchmarkScenario.cloudletWithHooksInWorkers, .cloudletWithHooksInProcess, .cloudlet].flatMap {
        [
            Comparison(scenario: $0, measure: .throughput, connections: 64, target: 0.75),
            Comparison(scenario: $0, measure: .p50, connections: 1, target: 1.2),
            Comparison(scenario: $0, measure: .p99, connections: 64, target: 2.0),
        ]
    }

    private var runs: [Run] = []

    /// Prints the command that reproduces this run and the conditions of the measurement.
    func printHeader(options: BenchmarkOptions, arguments: [String], bodyBytes: Int) {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        print("$ swift run -c \(configuration) CloudletBenchmark \(arguments.dropFirst().joined(separator: " "))")
        print("binary: \(arguments[0])")
        print(
            "\(ProcessInfo.processInfo.activeProcessorCount) CPUs; each run: \(options.warmup.formatted()) s warm-up, "
                + "then \(options.seconds.formatted()) s measured; POST /parse/classes/\(SaveRequest.className) "
                + "with a \(bodyBytes)-byte JSON body; load generator: 1 SwiftNIO thread in this process")
        print("")
        print(Self.cell("scenario", 32) + Self.cell("conns", 6, right: true) + Self.cell("saves/s", 11, right: true)
            + Self.cell("p50 ms", 9, right: true) + Self.cell("p99 ms", 9, right: true) + Self.cell("errors", 8, right: true)
            + Self.cell("CPU µs/save", 13, right: true) + Self.cell("switches/save", 15, right: true))
    }

    /// Records `run` and prints its line.
    mutating func add(_ run: Run) {
        runs.append(run)
        print(
            Self.cell(run.scenario.title, 32) + Self.cell("\(run.connections)", 6, right: true)
                + Self.cell(String(format: "%.0f", run.savesPerSecond), 11, right: true)
                + Self.cell(String(format: "%.2f", run.result.percentileMilliseconds(0.50)), 9, right: true)
                + Self.cell(String(format: "%.2f", run.result.percentileMilliseconds(0.99)), 9, right: true)
                + Self.cell("\(run.result.errors)", 8, right: true)
                + Self.cell(run.result.machineMicrosecondsPerRequest.map { String(format: "%.0f", $0) } ?? "-", 13, right: true)
                + Self.cell(run.result.contextSwitchesPerRequest.map { String(format: "%.1f", $0) } ?? "-", 15, right: true))
    }

    /// Prints each comparison with the bare baseline, with its target and whether it is met.
    func printComparisons() {
        print("")
        print(Self.cell("against the bare baseline", 32) + Self.cell("conns", 6, right: true) + Self.cell("figure", 9, right: true)
            + Self.cell("ratio", 8, right: true) + Self.cell("target", 9, right: true) + Self.cell("met", 5, right: true))
        for comparison in Self.comparisons {
            guard let value = figure(comparison.measure, comparison.scenario, comparison.connections),
                let baseline = figure(comparison.measure, .bare, comparison.connections), baseline > 0
            else { continue }
            let ratio = value / baseline
            let met = comparison.measure == .throughput ? ratio >= comparison.target : ratio <= comparison.target
            print(
                Self.cell(comparison.scenario.title, 32) + Self.cell("\(comparison.connections)", 6, right: true)
                    + Self.cell(comparison.measure.rawValue, 9, right: true) + Self.cell(String(format: "%.2f", ratio), 8, right: true)
                    + Self.cell(String(format: comparison.measure == .throughput ? ">= %.2f" : "<= %.2f", comparison.target), 9, right: true)
                    + Self.cell(met ? "yes" : "NO", 5, right: true))
        }
    }

    private func figure(_ measure: Measure, _ scenario: BenchmarkScenario, _ connections: Int) -> Double? {
        guard let run = runs.first(where: { $0.scenario == scenario && $0.connections == connections }) else { return nil }
        switch measure {
        case .throughput: return run.savesPerSecond
        case .p50: return run.result.percentileMilliseconds(0.50)
        case .p99: return run.result.percentileMilliseconds(0.99)
        }
    }

    private static func cell(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
