import CloudletServer
import Foundation
import Testing

/// Workers' CPU: each app's group, and the top-level idle group a worker with a long call moves to.
@Suite("Worker CPU share")
struct WorkerCPUShareTests {
    @Test func aWorkerWithALongCallMovesToItsAppsIdleGroupAndBack() throws {
        let share = WorkerCPUShare(appId: "cpu-share-test-\(getpid())", longCallCores: WorkerPoolConfiguration.defaultLongCallCores)
        defer { share.remove() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["30"]
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let pid = child.processIdentifier
        guard let group = share.groupPath, let idle = share.idleGroupPath else {
            // No cgroups here: a demoted worker's threads run at nice 19, and back at 0.
            #expect(share.unavailableReason != nil)
            #expect(share.demote(pid))
            #expect(try Self.niceness(of: pid) == Int(WorkerCPUShare.demotedNiceness))
            #expect(share.promote(pid))
            #expect(try Self.niceness(of: pid) == 0)
            return
        }
        func members(_ folder: String) throws -> [Substring] {
            try String(contentsOfFile: folder + "/cgroup.procs", encoding: .utf8).split(separator: "\n")
        }
        #expect(share.adopt(pid))
        #expect(try members(group).contains(Substring(String(pid))))
        #expect(try String(contentsOfFile: group + "/cpu.shares", encoding: .utf8).hasPrefix("\(WorkerCPUShare.appShares)"))
        #expect(share.demote(pid))
        #expect(try members(idle).contains(Substring(String(pid))))
        #expect(try !members(group).contains(Substring(String(pid))))
        #expect(group.hasSuffix("/cloudlet/\(getpid())/cpu-share-test-\(getpid())"), "the host's own group")
        let idleParent = ((idle as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        if FileManager.default.fileExists(atPath: idleParent + "/cpu.idle") {
            #expect(try String(contentsOfFile: idleParent + "/cpu.idle", encoding: .utf8).hasPrefix("1"))
        }
        #expect(share.promote(pid))
        #expect(try members(group).contains(Substring(String(pid))))
    }

    @Test func anAppsLongCallsAreCappedAtTheirCoresAndUncappedWhenToldSo() throws {
        let capped = WorkerCPUShare(appId: "cpu-cap-test-\(getpid())", longCallCores: 0.3)
        defer { capped.remove() }
        guard let idle = capped.idleGroupPath else {
            // No cgroups here: nothing can cap a worker's CPU.
            #expect(capped.longCallCores == nil)
            return
        }
        func read(_ folder: String, _ file: String) throws -> Int? {
            Int(try String(contentsOfFile: folder + "/" + file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard FileManager.default.fileExists(atPath: idle + "/cpu.cfs_quota_us") else {
            // A kernel without CPU bandwidth control: the groups hold, uncapped.
            #expect(capped.longCallCores == nil)
            return
        }
        #expect(capped.longCallCores == 0.3)
        #expect(try read(idle, "cpu.cfs_period_us") == WorkerCPUShare.capPeriodMicroseconds)
        #expect(try read(idle, "cpu.cfs_quota_us") == 30_000)
        // The app's own group, where calls that behave run, is never capped.
        #expect(try read(capped.groupPath!, "cpu.cfs_quota_us") == -1)
        for uncapped in [0, -1, .nan, .infinity] as [Double] {
            let share = WorkerCPUShare(appId: "cpu-cap-test-\(getpid())", longCallCores: uncapped)
            #expect(share.longCallCores == nil)
            #expect(try read(idle, "cpu.cfs_quota_us") == -1)
        }
    }

    @Test func theGroupsOfAHostThatNoLongerRunsAreRemovedAsTheNextSetsUp() throws {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let root = "/sys/fs/cgroup/cpu"
        let leftover = root + "/cloudlet/\(ended.processIdentifier)/left-behind"
        guard (try? FileManager.default.createDirectory(atPath: leftover, withIntermediateDirectories: true)) != nil else {
            return  // No cgroups to write here: there are no groups to leave behind either.
        }
        let share = WorkerCPUShare(appId: "cpu-cleanup-test-\(getpid())", longCallCores: 0)
        defer { share.remove() }
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(!FileManager.default.fileExists(atPath: root + "/cloudlet/\(ended.processIdentifier)"))
        #expect(share.groupPath.map(FileManager.default.fileExists(atPath:)) == true, "a running host's group stays")
    }

    /// Field 19 of /proc/<pid>/stat: the nice value.
    static func niceness(of pid: Int32) throws -> Int? {
        let fields = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8).split(separator: ")").last!.split(separator: " ")
        return Int(fields[16])
    }
}
