import Foundation
import Glibc

/// Keeps one app's hooks from taking the CPU the host and the other apps need, without slowing
/// the hooks that behave. Where the host may write the kernel's cgroup v1 `cpu` controller (as
/// root, usually), each app's workers run in a group of their own,
/// `/sys/fs/cgroup/cpu/cloudlet/<host pid>/<app>`, all apps weighing the same (`cpu.shares` 1024).
/// Groups are per host process, so two hosts on one machine serving an app of the same id share
/// neither a group nor its cap; the groups of hosts no longer running are removed as the next
/// host sets up. A worker whose call has run longer than
/// ``WorkerPoolConfiguration/demotionDelay`` — a hook that spins, or computes for long — moves to
/// `cloudlet-idle/<host pid>/<app>`: `cloudlet-idle` is an idle group at the top of the hierarchy (`cpu.idle`
/// 1; `cpu.shares` 2 where the kernel lacks it), so the host's threads, which serve every app's
/// requests, take the CPU from it the moment they need it, and the apps in it share what is left
/// equally. It moves back once its long calls end. The idle group alone does not make a spinning
/// hook free for the host: on a virtual machine, a host thread that wakes on a core busy with an
/// idle task still pays for taking it back, so that two spinning workers cost the host about a
/// quarter of its throughput. So each app's idle folder is also capped (`cpu.cfs_quota_us`) at
/// ``longCallCores`` cores over all its demoted workers. Without cgroups, a demoted worker's
/// threads run at `nice` 19 instead, with no cap.
public struct WorkerCPUShare: Sendable {
    /// The app's cgroup folder, or nil where cgroups cannot be used here.
    public let groupPath: String?
    /// The app's folder in the idle group, for workers with a long call.
    public let idleGroupPath: String?
    /// Why the cgroup is not used, if it is not.
    public let unavailableReason: String?
    /// The most CPU, in cores, the app's demoted workers take together; nil for no cap.
    public let longCallCores: Double?
    /// Each app group's `cpu.shares`.
    public static let appShares = 1024
    /// The `nice` value of a demoted worker's threads where there are no cgroups.
    public static let demotedNiceness: Int32 = 19
    /// The period over which the kernel enforces ``longCallCores``, in microseconds: 100 ms.
    public static let capPeriodMicroseconds = 100_000

    /// Sets up the groups of `appId` under `root` (the cgroup v1 `cpu` controller's mount), its
    /// demoted workers capped at `longCallCores` cores together (0 for no cap).
    public init(appId: String, longCallCores: Double, root: String = "/sys/fs/cgroup/cpu") {
        let host = String(getpid())
        let idleParent = root + "/cloudlet-idle"
        Self.removeGroupsOfEndedHosts(in: [root + "/cloudlet", idleParent])
        let group = root + "/cloudlet/" + host + "/" + appId
        let idleGroup = idleParent + "/" + host + "/" + appId
        // At most 4,096 cores, so that the quota in microseconds stays a number the kernel takes.
        let cap = longCallCores > 0 && longCallCores.isFinite ? min(longCallCores, 4_096) : nil
        do {
            for folder in [group, idleGroup] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Self.write(String(Self.appShares), to: folder + "/cpu.shares")
            }
            if FileManager.default.fileExists(atPath: idleParent + "/cpu.idle") {
                try Self.write("1", to: idleParent + "/cpu.idle")
            } else {
                try Self.write("2", to: idleParent + "/cpu.shares")
            }
            groupPath = group
            idleGroupPath = idleGroup
            // A kernel built without CPU bandwidth control has no quota files: the groups still hold, uncapped.
            self.longCallCores = (try? Self.cap(idleGroup, at: cap)) == nil ? nil : cap
            unavailableReason = nil
        } catch {
            groupPath = nil
            idleGroupPath = nil
            self.longCallCores = nil
            unavailableReason = "the cgroup cpu controller at \(root) cannot be written here (\(error.localizedDescription))"
        }
    }

    /// Caps the group in `folder` at `cores` (nil: no cap) per ``capPeriodMicroseconds``.
    private static func cap(_ folder: String, at cores: Double?) throws {
        try write(String(capPeriodMicroseconds), to: folder + "/cpu.cfs_period_us")
        // The kernel takes at least 1 ms a period.
        let quota = cores.map { max(Int(($0 * Double(capPeriodMicroseconds)).rounded()), 1_000) } ?? -1
        try write(String(quota), to: folder + "/cpu.cfs_quota_us")
    }

    /// Moves worker `pid` (all its threads) into the app's group. Returns false if that failed.
    @discardableResult
    public func adopt(_ pid: Int32) -> Bool {
        guard let groupPath else { return true }
        return (try? Self.write(String(pid), to: groupPath + "/cgroup.procs")) != nil
    }

    /// Moves worker `pid` to the app's idle group (or lowers its threads' priority).
    @discardableResult
    public func demote(_ pid: Int32) -> Bool {
        guard let idleGroupPath else { return Self.renice(pid, Self.demotedNiceness) }
        return (try? Self.write(String(pid), to: idleGroupPath + "/cgroup.procs")) != nil
    }

    /// Moves worker `pid` back into the app's group (or back to the host's priority).
    @discardableResult
    public func promote(_ pid: Int32) -> Bool {
        guard groupPath != nil else { return Self.renice(pid, 0) }
        return adopt(pid)
    }

    /// Removes the app's groups once its workers are gone (the kernel refuses while any is left),
    /// and the host's folders once no app's group is left in them.
    public func remove() {
        for path in [idleGroupPath, groupPath].compactMap(\.self) {
            rmdir(path)
            rmdir((path as NSString).deletingLastPathComponent)
        }
    }

    /// Removes, in each of `parents`, the folders of host processes that no longer run (named by
    /// their pid) with their apps' groups: a host killed with SIGKILL leaves them behind. A group
    /// some process still runs in stays (the kernel refuses to remove it).
    private static func removeGroupsOfEndedHosts(in parents: [String]) {
        for parent in parents {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] {
                guard let pid = pid_t(name), kill(pid, 0) != 0, errno == ESRCH else { continue }
                let host = parent + "/" + name
                for app in (try? FileManager.default.contentsOfDirectory(atPath: host)) ?? [] where !app.contains(".") {
                    rmdir(host + "/" + app)
                }
                rmdir(host)
            }
        }
    }

    /// Sets every thread of `pid` to `niceness` (`setpriority` on Linux acts on one thread).
    private static func renice(_ pid: Int32, _ niceness: Int32) -> Bool {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var all = !threads.isEmpty
        for thread in threads.compactMap({ id_t($0) }) {
            all = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, niceness) == 0 && all
        }
        return all
    }

    private static func write(_ text: String, to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
    }
}
