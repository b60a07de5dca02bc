import CloudletServer
import Foundation
import Testing

/// Workers' CPU share: a lower priority always, and the app's own cgroup where the host may write it.
@Suite("Worker CPU share")
struct WorkerCPUShareTests {
    @Test func aWorkerRunsNicerThanTheHostAndInItsAppsGroup() throws {
        let share = WorkerCPUShare(appId: "cpu-share-test-\(getpid())")
        defer { share.remove() }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["5"]
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let adopted = share.adopt(child.processIdentifier)
        let fields = try String(contentsOfFile: "/proc/\(child.processIdentifier)/stat", encoding: .utf8)
            .split(separator: ")").last!.split(separator: " ")
        // Field 19 of /proc/<pid>/stat is the nice value; the split above starts at field 3.
        #expect(Int(fields[16]) == Int(WorkerCPUShare.workerNiceness))
        if let group = share.groupPath {
            #expect(adopted)
            let members = try String(contentsOfFile: group + "/cgroup.procs", encoding: .utf8)
            #expect(members.split(separator: "\n").contains(Substring(String(child.processIdentifier))))
            #expect(try String(contentsOfFile: group + "/cpu.shares", encoding: .utf8).hasPrefix("\(WorkerCPUShare.appShares)"))
            let parent = (group as NSString).deletingLastPathComponent
            #expect(try String(contentsOfFile: parent + "/cpu.shares", encoding: .utf8).hasPrefix("\(WorkerCPUShare.allWorkersShares)"))
        } else {
            #expect(share.unavailableReason != nil)
        }
    }
}
