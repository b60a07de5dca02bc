import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// Apps do not trust each other: a hook sees neither the host's environment nor its data folder.
    @Suite struct TenantIsolationTests {
        typealias TwoApps = IsolationTests.TwoApps

        /// What the fixture's `snoop` hook found, trying `paths`.
        private func snoop(_ apps: TwoApps, paths: [String]) async throws -> ParseValue {
            let reply = try await apps.fixture.post("/functions/snoop", ["paths": .array(paths.map(ParseValue.string))])
            #expect(reply.status == 200)
            return try #require(reply["result"])
        }

        @Test func aWorkerGetsAScrubbedEnvironmentAndAFolderOfItsOwn() async throws {
            let apps = try await TwoApps.start(environment: ["CLOUDLET_MASTER_KEY": "master-key-of-the-host"])
            defer { apps.stop() }
            let found = try await snoop(apps, paths: [])
            let environment = try #require(found["environment"]?.objectValue)
            #expect(environment.keys.allSatisfy { !$0.hasPrefix("CLOUDLET_") }, "\(environment.keys.sorted())")
            #expect(!environment.values.contains("master-key-of-the-host"))
            let folder = apps.data.appendingPathComponent("workers/fixture").resolvingSymlinksInPath().path
            #expect(found["folder"]?.stringValue.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path } == folder)
            #expect(environment["HOME"]?.stringValue == found["folder"]?.stringValue)
        }

        @Test(.enabled(if: Landlock.abiVersion != nil, "needs the kernel's Landlock to fence workers out of the data folder"))
        func aHookCannotReadTheHostsDatabaseNorAnotherAppsDatabase() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let paths = ["host.sqlite", "apps/other.sqlite", "apps/fixture.sqlite"].map { apps.data.appendingPathComponent($0).path }
            for path in paths { #expect(FileManager.default.isReadableFile(atPath: path), "\(path) exists for the host") }
            let found = try await snoop(apps, paths: paths + ["/etc/hostname"])
            for path in paths { #expect(found["files"]?[path] == .null, "the hook read \(path)") }
            #expect(found["files"]?["/etc/hostname"] == .null, "nor the rest of /etc")
            let host = "/proc/\(apps.server.pid)"
            let fromProc = try await snoop(apps, paths: ["\(host)/environ", "\(host)/cwd/host.sqlite", "\(host)/root\(apps.data.path)/host.sqlite"])
            #expect(fromProc["files"]?.objectValue?.values.allSatisfy { $0 == .null } == true, "the host's process: \(fromProc)")
            #expect(found["capabilities"] == "0000000000000000", "a worker holds no capability, even when the host is root")
            try await apps.expectOtherAppAnswers()
        }

        @Test func aHookFindsNoSocketOfTheHostOrItsWorkersToConnectTo() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let host = try Self.socketInodes(ofProcessAndChildren: apps.server.pid)
            #expect(host.count >= 2, "the host holds its workers' connections: \(host)")
            let reply = try await apps.fixture.post("/functions/sockets", [:])
            let visible = try #require(reply["result"]?.arrayValue, "sockets answered \(reply.status)")
            let ofTheHost = visible.filter { host.contains($0["inode"]?.stringValue ?? "") }
            #expect(ofTheHost.isEmpty, "a hook found the host's sockets by path: \(ofTheHost)")
            try await apps.expectOtherAppAnswers()
        }

        @Test func keysGivenAsFlagsAreWipedFromTheCommandLineAndServeWarnsWhileOtherAppsRun() async throws {
            let keys = ["--client-key": "client-key-on-the-command-line", "--master-key": "master-key-on-the-command-line"]
            let apps = try await TwoApps.start(
                keys.flatMap { [$0.key, $0.value] } + ["--operator-key=operator-key-on-the-command-line"])
            defer { apps.stop() }
            let commandLine = String(decoding: try Data(contentsOf: URL(fileURLWithPath: "/proc/\(apps.server.pid)/cmdline")), as: UTF8.self)
            #expect(commandLine.contains("--master-key") && commandLine.contains("--operator-key="), "\(commandLine)")
            for key in Array(keys.values) + ["operator-key-on-the-command-line"] {
                #expect(!commandLine.contains(key), "\(key) is readable in /proc/<pid>/cmdline")
            }
            let client = apps.server.client(appId: "fixture", clientKey: keys["--client-key"], masterKey: keys["--master-key"])
            #expect(try await client.post("/functions/pid", [:]).status == 200, "the keys given still open the app")
            #expect(apps.server.stderr.contains("keys given as flags while other apps run here"), "\(apps.server.stderr)")
            #expect(apps.server.stderr.contains("CLOUDLET_OPERATOR_KEY"))
        }

        /// The inodes of the sockets `pid` and its children (the host's workers) hold.
        static func socketInodes(ofProcessAndChildren pid: Int32) throws -> Set<String> {
            let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            let children = all.filter { Int($0) != nil && (try? HostUsage.statFields(of: Int($0)!))?[1] == Substring(String(pid)) }
            let processes = [String(pid)] + children
            return Set(
                processes.flatMap { process in
                    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd")) ?? []
                    return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/fd/\($0)") }
                        .compactMap { $0.firstMatch(of: /socket:\[(\d+)\]/).map { String($0.1) } }
                })
        }
    }
}
