import Foundation
import LoadSupport

/// Prints the benchmark's findings as they come: the command line, one table line per run, and
/// at the end the throughput ratios against their targets.
struct BenchmarkReport {
    /// One measured run: a scenario at a number of connections.
    struct Run {
        let scenario: BenchmarkScenario
        let connections: Int
        let result: LoadResult
        let seconds: Double

        var savesPerSecond: Double { Double(result.accepted) / seconds }
    }

    /// A throughput ratio the benchmark checks, and its target.
    private struct Ratio {
        let name: String
        let numerator: BenchmarkScenario
        let denominator: BenchmarkScenario
        let target: Double
    }

    private static let ratios = [
        Ratio(name: "with hooks / no hooks", numerator: .cloudletWithHooks, denominator: .cloudlet, target: 0.70),
        Ratio(name: "no hooks / bare", numerator: .cloudlet, denominator: .bare, target: 0.60),
    ]

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
            + Self.cell("p50 ms", 9, right: true) + Self.cell("p99 ms", 9, right: true) + Self.cell("errors", 8, right: true))
    }

    /// Records `run` and prints its line.
    mutating func add(_ run: Run) {
        runs.append(run)
        print(
            Self.cell(run.scenario.title, 32) + Self.cell("\(run.connections)", 6, right: true)
                + Self.cell(String(format: "%.0f", run.savesPerSecond), 11, right: true)
                + Self.cell(String(format: "%.2f", run.result.percentileMilliseconds(0.50)), 9, right: true)
                + Self.cell(String(format: "%.2f", run.result.percentileMilliseconds(0.99)), 9, right: true)
                + Self.cell("\(run.result.errors)", 8, right: true))
    }

    /// Prints each ratio at each connection count, with its target and whether it is met.
    func printRatios() {
        print("")
        print(Self.cell("throughput ratio", 32) + Self.cell("conns", 6, right: true) + Self.cell("ratio", 8, right: true)
            + Self.cell("target", 9, right: true) + Self.cell("met", 5, right: true))
        for ratio in Self.ratios {
            for connections in Array(Set(runs.map(\.connections))).sorted() {
                guard let numerator = rate(ratio.numerator, connections), let denominator = rate(ratio.denominator, connections),
                    denominator > 0
                else { continue }
                let value = numerator / denominator
                print(
                    Self.cell(ratio.name, 32) + Self.cell("\(connections)", 6, right: true)
                        + Self.cell(String(format: "%.2f", value), 8, right: true)
                        + Self.cell(String(format: ">= %.2f", ratio.target), 9, right: true)
                        + Self.cell(value >= ratio.target ? "yes" : "NO", 5, right: true))
            }
        }
    }

    private func rate(_ scenario: BenchmarkScenario, _ connections: Int) -> Double? {
        runs.first { $0.scenario == scenario && $0.connections == connections }?.savesPerSecond
    }

    private static func cell(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
