import Foundation
import Glibc

/// Keeps an app's workers from taking CPU from the host and from other apps: each worker runs at
/// a lower scheduling priority than the host (`nice` 10), and, where the host may write the
/// kernel's cgroup v1 `cpu` controller (as root, usually), in a group of the app's own
/// (`/sys/fs/cgroup/cpu/cloudlet/<app>`) whose `cpu.shares` weighs all of its workers together as
/// a quarter of one host thread. Spinning hooks of one app then share what the host and the
/// other apps leave, instead of taking a core each.
public struct WorkerCPUShare: Sendable {
    /// The app's cgroup folder, or nil where cgroups cannot be used here.
    public let groupPath: String?
    /// Why the cgroup is not used, if it is not.
    public let unavailableReason: String?
    /// The `nice` value workers run at.
    public static let workerNiceness: Int32 = 10
    /// The app group's `cpu.shares` (the host's threads weigh 1024 each).
    public static let appShares = 256

    /// Sets up the share of `appId` under `root` (the cgroup v1 `cpu` controller's mount).
    public init(appId: String, root: String = "/sys/fs/cgroup/cpu") {
        let parent = root + "/cloudlet"
        let group = parent + "/" + appId
        do {
            try FileManager.default.createDirectory(atPath: group, withIntermediateDirectories: true)
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

    private static func write(_ text: String, to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
    }
}
