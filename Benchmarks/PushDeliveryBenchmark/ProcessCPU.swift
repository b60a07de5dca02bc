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
