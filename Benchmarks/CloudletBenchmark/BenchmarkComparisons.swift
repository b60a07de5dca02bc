import Foundation

/// The end of the report: every figure of every server against the bare baseline's and
/// PocketBase's of the same run, then the hook path's targets (issue 30) and whether each is met.
extension BenchmarkReport {
    /// A target: `measure` of `scenario` at `connections` against the same figure of `reference`,
    /// at least `bound` for throughput, at most `bound` for latency and CPU.
    private struct Target {
        let scenario: BenchmarkScenario
        let measure: Measure
        let connections: Int
        let reference: BenchmarkScenario
        let bound: Double
    }

    /// Hooks in workers at ≥ 2× PocketBase's saves/s at 16 and 64 connections and ≥ 0.75 of bare's
    /// at 64; their CPU per save (server and workers) at 64 ≤ 1.5× bare's; p50 at 1 connection ≤ 1.6×
    /// bare's; p99 at 64 ≤ 2× bare's; hooks in-process at 64 ≥ bare's saves/s.
    private static let targets = [
        Target(scenario: .cloudletWithHooksInWorkers, measure: .throughput, connections: 16, reference: .pocketBase, bound: 2.0),
        Target(scenario: .cloudletWithHooksInWorkers, measure: .throughput, connections: 64, reference: .pocketBase, bound: 2.0),
        Target(scenario: .cloudletWithHooksInWorkers, measure: .throughput, connections: 64, reference: .bare, bound: 0.75),
        Target(scenario: .cloudletWithHooksInWorkers, measure: .serverCPU, connections: 64, reference: .bare, bound: 1.5),
        Target(scenario: .cloudletWithHooksInWorkers, measure: .p50, connections: 1, reference: .bare, bound: 1.6),
        Target(scenario: .cloudletWithHooksInWorkers, measure: .p99, connections: 64, reference: .bare, bound: 2.0),
        Target(scenario: .cloudletWithHooksInProcess, measure: .throughput, connections: 64, reference: .bare, bound: 1.0),
    ]

    /// Prints the ratios of every run to bare's and PocketBase's at the same connections, then the targets.
    func printComparisons() {
        printRatios()
        printTargets()
    }

    private func printRatios() {
        print("")
        print("ratios at the same connections: against bare / against PocketBase (- where not measured)")
        print(Self.cell("scenario", 32) + Self.cell("conns", 6, right: true)
            + Measure.allCases.map { Self.cell($0.rawValue, 14, right: true) }.joined())
        for run in runs where run.scenario != .bare {
            let cells = Measure.allCases.map { measure in
                let ratios = [BenchmarkScenario.bare, .pocketBase].map { reference in
                    ratio(measure, run.scenario, run.connections, to: reference).map { String(format: "%.2f", $0) } ?? "-"
                }
                return Self.cell(ratios.joined(separator: " / "), 14, right: true)
            }
            print(Self.cell(run.scenario.title, 32) + Self.cell("\(run.connections)", 6, right: true) + cells.joined())
        }
    }

    private func printTargets() {
        print("")
        print(Self.cell("targets", 32) + Self.cell("conns", 6, right: true) + Self.cell("figure", 10, right: true)
            + Self.cell("against", 12, right: true) + Self.cell("ratio", 8, right: true) + Self.cell("target", 9, right: true)
            + Self.cell("met", 5, right: true))
        for target in Self.targets {
            let value = ratio(target.measure, target.scenario, target.connections, to: target.reference)
            let met = value.map { target.measure == .throughput ? $0 >= target.bound : $0 <= target.bound }
            print(
                Self.cell(target.scenario.title, 32) + Self.cell("\(target.connections)", 6, right: true)
                    + Self.cell(target.measure.rawValue, 10, right: true)
                    + Self.cell(target.reference == .bare ? "bare" : "PocketBase", 12, right: true)
                    + Self.cell(value.map { String(format: "%.2f", $0) } ?? "-", 8, right: true)
                    + Self.cell(String(format: target.measure == .throughput ? ">= %.2f" : "<= %.2f", target.bound), 9, right: true)
                    + Self.cell(met.map { $0 ? "yes" : "NO" } ?? "-", 5, right: true))
        }
    }

    /// `measure` of `scenario` at `connections` divided by the same figure of `reference`.
    private func ratio(_ measure: Measure, _ scenario: BenchmarkScenario, _ connections: Int, to reference: BenchmarkScenario) -> Double? {
        guard scenario != reference, let value = figure(measure, scenario, connections),
            let base = figure(measure, reference, connections), base > 0
        else { return nil }
        return value / base
    }
}
