import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's file descriptors: its limit (`RLIMIT_NOFILE`) and how many are open.
public enum ProcessDescriptors {
    /// The soft limit: the most descriptors the process may have open.
    public static var limit: Int {
        var limits = rlimit()
        guard getrlimit(resourceLimit, &limits) == 0 else { return 1024 }
        return Int(clamping: limits.rlim_cur)
    }

    /// Raises the soft limit to the hard limit, answering the soft limit before and after.
    @discardableResult
    public static func raiseLimitToHard() -> (before: Int, after: Int) {
        var limits = rlimit()
        guard getrlimit(resourceLimit, &limits) == 0 else { return (limit, limit) }
        let before = Int(clamping: limits.rlim_cur)
        if limits.rlim_cur < limits.rlim_max {
            limits.rlim_cur = limits.rlim_max
            _ = setrlimit(resourceLimit, &limits)
        }
        return (before, limit)
    }

    /// How many descriptors are open now: the entries of `/proc/self/fd` (`/dev/fd` elsewhere),
    /// less the one the listing itself holds.
    public static func openCount() -> Int {
        #if os(Linux)
        let folder = "/proc/self/fd"
        #else
        let folder = "/dev/fd"
        #endif
        guard let directory = opendir(folder) else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
            if first != UInt8(ascii: ".") { count += 1 }
        }
        return max(0, count - 1)
    }

    #if os(Linux)
    private static let resourceLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceLimit = RLIMIT_NOFILE
    #endif
}
