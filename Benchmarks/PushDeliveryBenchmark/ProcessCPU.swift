import Foundation

/// The CPU time (user and system, all threads) a process has used so far, read from
/// `/proc/<pid>/stat` (Linux): how the benchmark says what one delivery costs on each side.
enum ProcessCPU {
    /// The seconds of CPU process `pid` has used, or this process's when `pid` is nil.
    static func seconds(of pid: Int32? = nil) -> Double {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let end = stat.lastIndex(of: ")") else { return 0 }
        // After the command's closing parenthesis: state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The machine's CPU time as `/proc/stat` counts it (Linux), in clock ticks: how much of it the
/// hypervisor gave to other guests (steal) while a scenario ran, which is what makes runs on a
/// shared virtual machine differ.
struct MachineCPU {
    var steal: Double = 0
    var total: Double = 0

    /// The counts so far (zero where `/proc/stat` cannot be read).
    static func now() -> MachineCPU {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = stat.split(separator: "\n").first
        else { return MachineCPU() }
        // "cpu user nice system idle iowait irq softirq steal …": the first eight counts are all the time there is.
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
        guard ticks.count == 8 else { return MachineCPU() }
        return MachineCPU(steal: ticks[7], total: ticks.reduce(0, +))
    }

    /// The share of the machine's CPU time stolen between `start` and `self`.
    func stealShare(since start: MachineCPU) -> Double {
        total > start.total ? (steal - start.steal) / (total - start.total) : 0
    }
}
