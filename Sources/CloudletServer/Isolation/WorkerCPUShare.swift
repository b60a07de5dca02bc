import Foundation
import Glibc

/// Keeps an app's workers from taking CPU from the host and from other apps: each worker runs at
/// a lower scheduling priority than the host (`nice` 10), and, where the host may write the
/// kernel's cgroup v1 `cpu` controller (as root, usually), in a group of its app's own,
/// `/sys/fs/cgroup/cpu/cloudlet/<app>`. All apps' groups sit in `cloudlet`, whose `cpu.shares` of
/// 64 weighs every worker of every app together at a sixteenth of one host thread (1024) when the
/// host is busy; inside it the apps weigh the same (1024 each), so one app's spinning hooks share
/// with the other apps' hooks instead of taking a core each. When the host is idle, workers may
/// use all of the CPU.
public struct WorkerCPUShare: Sendable {
    /// The app's cgroup folder, or nil where cgroups cannot be used here.
    public let groupPath: String?
    /// Why the cgroup is not used, if it is not.
    public let unavailableReason: String?
    /// The `nice` value workers run at.
    public static let workerNiceness: Int32 = 10
    /// The `cpu.shares` of all workers together, against the host's threads at 1024 each.
    public static let allWorkersShares = 64
    /// Each app group's `cpu.shares`, among the apps.
    public static let appShares = 1024

    /// Sets up the share of `appId` under `root` (the cgroup v1 `cpu` controller's mount).
    public init(appId: String, root: String = "/sys/fs/cgroup/cpu") {
        let parent = root + "/cloudlet"
        let group = parent + "/" + appId
        do {
            try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: true)
            try Self.write(String(Self.allWorkersShares), to: parent + "/cpu.shares")
            try Self.write(String(Self.appShares), to: group + "/cpu.shares")
            groupPath = group
            unavailableReason = nil
        } catch {
            groupPath = nil
            unavailableReason = "the cgroup cpu controller at \(root) cannot be written here (\(error.localizedDescription))"
        }
    }

    /// Lowers worker `pid`'s priority and moves it into the app's group. Returns false if either failed.
    @discardableResult
    public func adopt(_ pid: Int32) -> Bool {
        let reniced = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), Self.workerNiceness) == 0
        guard let groupPath else { return reniced }
        return reniced && (try? Self.write(String(pid), to: groupPath + "/cgroup.procs")) != nil
    }

    /// Removes the app's group once its workers are gone (the kernel refuses while any is left).
    public func remove() {
        if let groupPath { rmdir(groupPath) }
    }

    private static func write(_ text: String, to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
    }
}
