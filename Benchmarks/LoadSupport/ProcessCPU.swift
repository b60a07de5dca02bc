import Foundation

/// The CPU time (user and system, all threads) processes have used so far, read from
/// `/proc/<pid>/stat` (Linux): how a benchmark says what one request or delivery cost a server
/// alone, apart from the load generator and the rest of the machine.
public enum ProcessCPU {
    /// The seconds of CPU process `pid` has used, or this process's when `pid` is nil.
    public static func seconds(of pid: Int32? = nil) -> Double {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let end = stat.lastIndex(of: ")") else { return 0 }
        // After the command's closing parenthesis: state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The seconds of CPU process `root` and every live process it started (its workers, theirs,
    /// and so on) have used so far. A descendant that has already ended is not counted.
    public static func treeSeconds(of root: Int32) -> Double {
        descendants(of: root).reduce(seconds(of: root)) { $0 + seconds(of: $1) }
    }

    /// The live processes `root` started, and theirs, from each thread's `/proc/<pid>/task/<tid>/children`.
    public static func descendants(of root: Int32) -> [Int32] {
        var found: [Int32] = []
        var unvisited = [root]
        while let pid = unvisited.popLast() {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for thread in threads {
                let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/children", encoding: .utf8)) ?? ""
                let pids = children.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                found += pids
                unvisited += pids
            }
        }
        return found
    }
}
