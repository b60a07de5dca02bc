import Cloudlet
import CloudletServer
import CloudletWire
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

        @Test func aProcessClaimingToBeAWorkerIsRefusedAndTheWorkerKeepsItsCalls() async throws {
            let apps = try await TwoApps.start()
            defer { apps.stop() }
            let worker = try await apps.fixtureWorker()
            let socket = try ImpostorWorker.workerSocket(ofServer: apps.server.pid, appId: "fixture")
            let impostor = Task {
                try await ImpostorWorker.claim(
                    Int32(worker), hooks: [WireHello.Hook(kind: HookKind.function.definition.wireNumber, name: "pid", timeLimitMilliseconds: 15_000)],
                    at: socket, wait: .seconds(2))
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await apps.fixtureWorker() == worker, "the real worker still answers its calls")
            let (closed, invocations) = try await impostor.value
            #expect(closed, "the host closes a connection whose peer is not the process it claims to be")
            #expect(invocations == 0)
        }
    }
}
