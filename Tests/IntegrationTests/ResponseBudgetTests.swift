import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// What one request can make the real server build, measured on the running process.
    @Suite struct ResponseBudgetTests {
        /// The most memory process `pid` has held resident so far (its high-water mark), in bytes,
        /// from `/proc/<pid>/status`: a response built and freed between two samples still shows.
        private static func peakResidentBytes(_ pid: Int32) throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { throw ServerProcess.Failure(description: "no VmHWM in /proc/\(pid)/status") }
            return kilobytes * 1024
        }

        @Test func includeFanOutAnswers154AndLeavesTheMemoryFlat() async throws {
            let data = try ServerProcess.temporaryFolder("fanout")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data, arguments: ["--isolation", "in-process"])
            defer { server.killIfRunning() }
            let client = server.client(timeout: .seconds(60))

            // A 70 KB request: an object with 1,000 pointers to one 100 KB object.
            let target = try await client.post("/classes/Blobs", ["text": .string(String(repeating: "x", count: 100_000))])
            let targetId = try #require(target["objectId"]?.stringValue, "\(target.body)")
            let pointers = Array(repeating: ParseValue.pointer(className: "Blobs", objectId: targetId), count: 1000)
            let holder = try await client.post("/classes/Holders", ["p": .array(pointers)])
            let holderId = try #require(holder["objectId"]?.stringValue, "\(holder.body)")
            _ = try await client.get("/classes/Holders/\(holderId)")

            let before = try Self.peakResidentBytes(server.pid)
            let started = ContinuousClock.now
            for _ in 0..<5 {
                let reply = try await client.get("/classes/Holders/\(holderId)", query: ["include": "p"])
                #expect(reply.status == 400, "\(reply.status) with \(JSONWriter.bytes(reply.body).count) bytes")
                #expect(reply["code"] == 154)
            }
            let elapsed = ContinuousClock.now - started
            let grown = try Self.peakResidentBytes(server.pid) - before
            #expect(grown < 48 << 20, "the server's peak memory grew by \(grown >> 20) MiB")
            #expect(elapsed < .seconds(10), "five attacks took \(elapsed)")
            #expect(try await client.health().status == 200)
        }

        @Test func theBoundsComeFromFlagsAndEnvironment() async throws {
            let data = try ServerProcess.temporaryFolder("bounds")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(
                .cloudlet, data: data, arguments: ["--isolation", "in-process", "--max-object-bytes", "20000"],
                environment: ["CLOUDLET_MAX_RESPONSE_BYTES": "50000"])
            defer { server.killIfRunning() }
            let client = server.client()
            let tooLarge = try await client.post("/classes/Notes", ["text": .string(String(repeating: "n", count: 30_000))])
            #expect(tooLarge.status == 413)
            #expect(tooLarge["code"] == 116)
            for _ in 0..<4 {
                let note = try await client.post("/classes/Notes", ["text": .string(String(repeating: "n", count: 15_000))])
                #expect(note.status == 201, "\(note.body)")
            }
            let page = try await client.get("/classes/Notes", query: ["limit": 3])
            #expect(page["results"]?.arrayValue?.count == 3)
            let all = try await client.get("/classes/Notes")
            #expect(all.status == 400)
            #expect(all["code"] == 154)
        }
    }
}
