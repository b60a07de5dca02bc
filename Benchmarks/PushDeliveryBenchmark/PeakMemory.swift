import Foundation

/// The process's peak resident memory (VmHWM, Linux), which can be reset so that each scenario
/// reports its own peak.
enum PeakMemory {
    /// The peak since the process started or the last ``reset()``, in MiB.
    static var mebibytes: Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// Sets the peak to the memory resident now (`5` written to `/proc/self/clear_refs`).
    static func reset() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }
}
