import Foundation

/// The machine's CPU time as `/proc/stat` counts it (Linux), in clock ticks: how much of it the
/// hypervisor gave to other guests (steal) while a benchmark phase ran, which is what makes runs on a
/// shared virtual machine differ; and how much the machine spent running anything, and how often it
/// switched threads, which a phase's work costs whatever the hypervisor does.
public struct MachineCPU: Sendable {
    /// Ticks stolen by the hypervisor so far.
    public var steal: Double = 0
    /// All ticks so far.
    public var total: Double = 0
    /// Ticks spent running code (user, nice, system, irq, softirq) so far.
    public var busy: Double = 0
    /// Context switches so far, on every core.
    public var contextSwitches: Double = 0

    /// The counts so far (zero where `/proc/stat` cannot be read).
    public static func now() -> MachineCPU {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return MachineCPU() }
        let lines = stat.split(separator: "\n")
        guard let line = lines.first else { return MachineCPU() }
        // "cpu user nice system idle iowait irq softirq steal …": the first eight counts are all the time there is.
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
        guard ticks.count == 8 else { return MachineCPU() }
        let switches = lines.first { $0.hasPrefix("ctxt ") }.flatMap { Double($0.dropFirst(5)) } ?? 0
        return MachineCPU(
            steal: ticks[7], total: ticks.reduce(0, +), busy: ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6],
            contextSwitches: switches)
    }

    /// Seconds of one core the machine spent running code between `start` and `self`.
    public func busySeconds(since start: MachineCPU) -> Double {
        (busy - start.busy) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The share of the machine's CPU time stolen between `start` and `self`.
    public func stealShare(since start: MachineCPU) -> Double {
        total > start.total ? (steal - start.steal) / (total - start.total) : 0
    }
}
