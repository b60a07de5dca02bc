import Foundation

/// The machine's CPU time as `/proc/stat` counts it (Linux), in clock ticks: how much of it the
/// hypervisor gave to other guests (steal) while a benchmark phase ran, which is what makes runs on a
/// shared virtual machine differ.
public struct MachineCPU: Sendable {
    /// Ticks stolen by the hypervisor so far.
    public var steal: Double = 0
    /// All ticks so far.
    public var total: Double = 0

    /// The counts so far (zero where `/proc/stat` cannot be read).
    public static func now() -> MachineCPU {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = stat.split(separator: "\n").first
        else { return MachineCPU() }
        // "cpu user nice system idle iowait irq softirq steal …": the first eight counts are all the time there is.
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
        guard ticks.count == 8 else { return MachineCPU() }
        return MachineCPU(steal: ticks[7], total: ticks.reduce(0, +))
    }

    /// The share of the machine's CPU time stolen between `start` and `self`.
    public func stealShare(since start: MachineCPU) -> Double {
        total > start.total ? (steal - start.steal) / (total - start.total) : 0
    }
}
