import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

#if canImport(Glibc)
import Glibc
#endif

extension ProcessTests {
    /// `serve` and the process's descriptor limit: raised at start, shared so that creating apps
    /// never makes the process run out.
    @Suite struct DescriptorLimitTests {
        /// The test process's descriptor limits.
        static func limits() -> rlimit {
            var limits = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
            return limits
        }

        /// Starts `cloudlet serve` with the soft descriptor limit `soft`.
        static func serve(data: URL, soft: Int, arguments: [String] = []) async throws -> ServerProcess {
            let server = try ServerProcess.start(
                .cloudlet, arguments: ["serve", "--data", data.path, "--port", "0"] + arguments,
                environment: ["CLOUDLET_RATE_LIMIT": "off"], softDescriptorLimit: soft)
            try await server.waitForBanner()
            return server
        }

        @Test func serveRaisesItsSoftDescriptorLimitToTheHardLimitAndSaysSo() async throws {
            let data = try ServerProcess.temporaryFolder("descriptors")
            defer { try? FileManager.default.removeItem(at: data) }
            let hard = Int(Self.limits().rlim_max)
            try #require(hard > 512, "the hard limit leaves nothing to raise")
            let server = try await Self.serve(data: data, soft: 512)
            defer { server.killIfRunning() }
            let limits = try String(contentsOfFile: "/proc/\(server.pid)/limits", encoding: .utf8)
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["\(hard)", "\(hard)"], "\(line)")
            #expect(server.stdout.contains("descriptors: limit \(hard) (raised from 512), up to \(hard / 2) connections, 128 from one address"))
        }

        /// With room for a few apps only, `serve` starts those that fit, logs the others as not
        /// started and serves on; started again on the same data folder, it does the same.
        @Test func appsTheDescriptorsLeftCannotHoldAreNotStartedAndTheServerServesOn() async throws {
            let data = try ServerProcess.temporaryFolder("descriptors")
            defer { try? FileManager.default.removeItem(at: data) }
            let registry = try AppRegistry(dataDirectory: data.path)
            for index in 0..<30 {
                _ = try await registry.create(String(format: "app%02d", index), settings: AppSettings().applying(["isolation": "in-process"]), clientKey: "client", masterKey: "master")
            }
            // Room beside the host for about six apps of 15 descriptors.
            let hard = Int(Self.limits().rlim_max)
            let room = AppDescriptors.hostBaseline + 6 * 15 + 7
            let arguments = ["--isolation", "in-process", "--max-connections", "100", "--descriptor-reserve", "\(hard - 100 - room)"]
            for _ in 0..<2 {
                let server = try await Self.serve(data: data, soft: hard, arguments: arguments)
                defer { server.killIfRunning() }
                #expect(try await server.client().get("/health").status == 200)
                var served = 0
                for index in 0..<30 {
                    let app = server.client(appId: String(format: "app%02d", index), clientKey: "client", masterKey: "master")
                    if try await app.post("/classes/Notes", ["n": 1]).status == 201 { served += 1 }
                }
                let refusals = server.stderr.split(separator: "\n").filter { $0.contains("app not started") }
                #expect((1...10).contains(served), "\(served) apps served")
                #expect(refusals.count >= 20, "\(server.stderr)")
                #expect(refusals.first?.contains("it may need 15 file descriptors") == true)
                #expect(try await server.stop() == .exit(0))
            }
        }

        @Test func theBoundsAndTimeoutsAreReadFromFlagsVariablesAndTheConfigFile() async throws {
            let folder = try ServerProcess.temporaryFolder("descriptors")
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = folder.appendingPathComponent("config.json")
            try Data(#"{"maxConnectionsPerAddress": 2, "headerTimeoutMs": 300, "isolation": "in-process"}"#.utf8).write(to: config)
            let server = try await ServerProcess.serve(
                .cloudlet, data: folder.appendingPathComponent("data"), arguments: ["--config", config.path, "--max-connections", "50"])
            defer { server.killIfRunning() }
            #expect(server.stdout.contains("up to 50 connections, 2 from one address"), "\(server.stdout)")
            #expect(try await server.stop() == .exit(0))

            let invalid = try await ServerProcess.run(
                .cloudlet, ["serve", "--config", config.path, "--data", folder.path, "--port", "0"],
                environment: ["CLOUDLET_IDLE_TIMEOUT_MS": "0"])
            #expect(invalid.ending == .exit(64))
            #expect(invalid.stderr.contains("CLOUDLET_IDLE_TIMEOUT_MS has an invalid value: 0"), "\(invalid.stderr)")
        }
    }
}
