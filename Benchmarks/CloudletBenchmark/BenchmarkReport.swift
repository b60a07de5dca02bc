import Foundation
import LoadSupport

/// Prints the benchmark's findings as they come: the command line, one table line per run, and
/// at the end each figure against the bare baseline's and PocketBase's, with the hook path's targets.
struct BenchmarkReport {
    /// One measured run: a scenario at a number of connections.
    struct Run {
        let scenario: BenchmarkScenario
        let connections: Int
        let result: LoadResult
        let seconds: Double

        var savesPerSecond: Double { Double(result.accepted) / seconds }

        /// The run's value of `measure`, if it has one.
        func figure(_ measure: Measure) -> Double? {
            switch measure {
            case .throughput: savesPerSecond
            case .p50: result.percentileMilliseconds(0.50)
            case .p99: result.percentileMilliseconds(0.99)
            case .serverCPU: result.serverMicrosecondsPerRequest
            }
        }
    }

    /// What a comparison measures of a run; higher is better only for throughput.
    enum Measure: String, CaseIterable {
        case throughput = "saves/s"
        case p50 = "p50"
        case p99 = "p99"
        case serverCPU = "CPU/save"
    }

    private(set) var runs: [Run] = []

    /// Prints the command that reproduces this run and the conditions of the measurement.
    func printHeader(options: BenchmarkOptions, arguments: [String], bodyBytes: Int) {
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        print("$ swift run -c \(configuration) --package-path Benchmarks CloudletBenchmark \(arguments.dropFirst().joined(separator: " "))")
        print("binary: \(arguments[0])")
        print(
            "\(ProcessInfo.processInfo.activeProcessorCount) CPUs; each run: \(options.warmup.formatted()) s warm-up, "
                + "then \(options.seconds.formatted()) s measured; POST of a \(bodyBytes)-byte JSON object; "
                + "each server in a process of its own; load generator: 1 SwiftNIO thread in this process")
        print(
            "server µs/save: CPU of the server's process and its workers (/proc/<pid>/stat); "
                + "machine µs/save and switches/save: the whole machine's (/proc/stat), load generator included")
    }

    /// Prints the table's column titles.
    func printColumns() {
        print("")
        print(Self.cell("scenario", 32) + Self.cell("conns", 6, right: true) + Self.cell("saves/s", 11, right: true)
            + Self.cell("p50 ms", 9, right: true) + Self.cell("p99 ms", 9, right: true) + Self.cell("errors", 8, right: true)
            + Self.cell("server µs/save", 16, right: true) + Self.cell("machine µs/save", 17, right: true)
            + Self.cell("switches/save", 15, right: true) + Self.cell("steal", 7, right: true))
    }

    /// Records `run` and prints its line.
    mutating func add(_ run: Run) {
        runs.append(run)
        let result = run.result
        print(
            Self.cell(run.scenario.title, 32) + Self.cell("\(run.connections)", 6, right: true)
                + Self.cell(String(format: "%.0f", run.savesPerSecond), 11, right: true)
                + Self.cell(String(format: "%.2f", result.percentileMilliseconds(0.50)), 9, right: true)
                + Self.cell(String(format: "%.2f", result.percentileMilliseconds(0.99)), 9, right: true)
                + Self.cell("\(result.errors)", 8, right: true)
                + Self.cell(result.serverMicrosecondsPerRequest.map { String(format: "%.0f", $0) } ?? "-", 16, right: true)
                + Self.cell(result.machineMicrosecondsPerRequest.map { String(format: "%.0f", $0) } ?? "-", 17, right: true)
                + Self.cell(result.contextSwitchesPerRequest.map { String(format: "%.1f", $0) } ?? "-", 15, right: true)
                + Self.cell(result.stealShare.map { String(format: "%.1f%%", $0 * 100) } ?? "-", 7, right: true))
    }

    /// The figure of `measure` for `scenario` at `connections`, if that run was measured.
    func figure(_ measure: Measure, _ scenario: BenchmarkScenario, _ connections: Int) -> Double? {
        runs.first { $0.scenario == scenario && $0.connections == connections }?.figure(measure)
    }

    /// `text` padded to `width` characters, on the left when `right`.
    static func cell(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
