import Cloudlet
import CloudletServerTesting
import Foundation
import Testing

extension ProcessTests {
    /// A worker's before hook is given the object a create makes, whether the host sends the
    /// client's JSON as it came (a body of plain fields and an ACL) or encodes the object anew
    /// (anything it must leave out or rewrite).
    @Suite struct BeforeHookInputTests {
        @Test func aWorkersBeforeHookSeesTheCreatedObjectAndNothingElseOfTheBody() async throws {
            let data = try ServerProcess.temporaryFolder("before-hook-input")
            defer { try? FileManager.default.removeItem(at: data) }
            let server = try await ServerProcess.serve(.fixture, data: data)
            defer { server.killIfRunning() }
            let client = server.client()
            let cases: [(body: [String: ParseValue], seen: [ParseValue])] = [
                // Plain fields and an ACL: the bytes travel as they came.
                (["text": "hi", "count": 2, "done": false, "ACL": ["*": ["read": true]]], ["count", "done", "text", "ACL"]),
                // The JavaScript SDK's transport members are no fields of the object.
                (["text": "hi", "_ClientVersion": "js6.1.1", "_RevocableSession": "1"], ["text"]),
                // Members Parse ignores on a create: no dates, no class name.
                (["text": "hi", "createdAt": "2020-01-01T00:00:00.000Z", "className": "Other"], ["text"]),
                // A field operation and a date are given as the values they make.
                (["text": "hi", "count": ["__op": "Increment", "amount": 3], "at": ["__type": "Date", "iso": "2026-01-02T03:04:05Z"]],
                 ["at", "count", "text"]),
            ]
            for (body, seen) in cases {
                let created = try await client.post("/classes/Echoed", body)
                #expect(created.status == 201, "\(JSONWriter.string(created.body))")
                #expect(created["seen"] == .array(seen), "for the body \(JSONWriter.string(.object(body)))")
                let id = try #require(created["objectId"]?.stringValue)
                let stored = try await client.get("/classes/Echoed/\(id)", master: true)
                #expect(stored["text"] == "hi")
                #expect(stored["_ClientVersion"] == nil && stored["createdAt"] != "2020-01-01T00:00:00.000Z")
            }
        }
    }
}
