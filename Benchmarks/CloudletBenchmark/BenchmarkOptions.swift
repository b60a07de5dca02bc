/// The benchmark's command-line options: `--seconds N`, `--warmup N`, `--connections 1,16,64`,
/// `--scenarios bare,workers` (to profile one server alone) and `--pocketbase <path>`.
struct BenchmarkOptions {
    /// How long each measured run lasts.
    var seconds: Double = 5
    /// How long each run is driven before measuring starts.
    var warmup: Double = 1
    /// The numbers of concurrent connections to measure, one run each.
    var connections: [Int] = [1, 16, 64]
    /// The servers to measure, in the report's order.
    var scenarios: [BenchmarkScenario] = BenchmarkScenario.allCases
    /// The `pocketbase` binary; nil looks in `Benchmarks/PocketBase/.venv-pb/bin` and then on `PATH`.
    var pocketBase: String?

    static let usage = "usage: CloudletBenchmark [--seconds N] [--warmup N] [--connections 1,16,64] [--scenarios \(BenchmarkScenario.allCases.map(\.option).joined(separator: ","))] [--pocketbase PATH]"

    /// Reads `arguments` (without the program name). Throws a message for anything it does not understand.
    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            switch flag {
            case "--seconds":
                seconds = try Self.duration(value, for: flag, allowingZero: false)
            case "--warmup":
                warmup = try Self.duration(value, for: flag, allowingZero: true)
            case "--connections":
                let counts = value.split(separator: ",").map { Int($0) }
                guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw UsageError(message: "--connections takes positive integers separated by commas, not \(value)")
                }
                connections = counts.compactMap { $0 }
            case "--scenarios":
                let chosen = value.split(separator: ",").map { name in BenchmarkScenario.allCases.first { $0.option == name } }
                guard !chosen.isEmpty, chosen.allSatisfy({ $0 != nil }) else {
                    throw UsageError(message: "--scenarios takes names from \(Self.usage), not \(value)")
                }
                scenarios = chosen.compactMap { $0 }
            case "--pocketbase":
                pocketBase = value
            default:
                throw UsageError(message: "unknown option \(flag)")
            }
        }
    }

    private static func duration(_ text: String, for flag: String, allowingZero: Bool) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite, allowingZero ? value >= 0 : value > 0 else {
            throw UsageError(message: "\(flag) takes a number of seconds, not \(text)")
        }
        return value
    }

    /// A command line the benchmark cannot run.
    struct UsageError: Error, CustomStringConvertible {
        let message: String

        var description: String { message }
    }
}
