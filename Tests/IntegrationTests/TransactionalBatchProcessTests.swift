import Cloudlet
import CloudletServerTesting
import CloudletTesting
import Foundation
import Testing

extension ProcessTests {
    /// A transactional `POST /batch` against a real `cloudlet serve`, the default app's hooks in
    /// worker processes: a refusal by `beforeSave("Posts")` stores nothing and runs no after hook;
    /// committed, `afterSave("Posts")` runs once per post, in order, after the commit.
    @Suite struct TransactionalBatchProcessTests {
        static func post(_ title: String) -> ParseValue {
            ["method": "POST", "path": "/parse/classes/Posts", "body": ["title": .string(title), "author": "bo"]]
        }

        @Test func aRefusalInAWorkerRollsBackAndACommitRunsEachAfterHookOnce() async throws {
            let data = try ServerProcess.temporaryFolder("transactional-batch")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.cloudlet, data: data)
            defer { server.killIfRunning() }
            let client = server.client()

            let refused = try await client.post("/batch", ["transaction": true, "requests": [Self.post("one"), Self.post("   "), Self.post("three")]])
            #expect(refused.status == 400)
            #expect(refused["code"] == 142)
            #expect(refused["error"] == "title must not be empty")
            #expect(try await client.query("Posts").isEmpty)
            #expect(try await client.query("AuthorStats").isEmpty, "no after hook ran")

            let committed = try await client.post("/batch", ["transaction": true, "requests": [Self.post("one"), Self.post("two")]])
            #expect(committed.status == 200, "\(JSONWriter.string(committed.body))")
            #expect(committed.body.arrayValue?.allSatisfy { $0["success"]?["objectId"] != nil } == true, "\(server.stderr.suffix(2000))")
            #expect(try await client.query("Posts").count == 2)
            let stats = try await client.query("AuthorStats", where: ["author": "bo"])
            #expect(stats.count == 1, "the after hooks ran one after the other: \(stats)")
            #expect(stats.first?["posts"] == 2)
            #expect(try await server.stop() == .exit(0))
        }
    }
}
