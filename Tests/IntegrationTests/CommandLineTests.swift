import Cloudlet
import Foundation
import Testing

extension ProcessTests {
    /// `cloudlet invoke` and `cloudlet hooks list`.
    @Suite struct CommandLineTests {
        @Test func invokeRunsAFunction() async throws {
            let folder = try ServerProcess.temporaryFolder("invoke")
            defer { try? FileManager.default.removeItem(at: folder) }
            let input = folder.appendingPathComponent("input.json")
            try Data(#"{"name":"Ada"}"#.utf8).write(to: input)

            let run = try await ServerProcess.run(.cloudlet, ["invoke", "hello", "--input", input.path])
            #expect(run.ending == .exit(0), "\(run.stderr)")
            #expect(try JSONParser.parse(Array(run.stdout.utf8)) == ["result": "Hello, Ada!"])
            #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"result":"Hello, Ada!"}"#)
        }

        @Test func invokeReportsARejectedSave() async throws {
            let folder = try ServerProcess.temporaryFolder("invoke")
            defer { try? FileManager.default.removeItem(at: folder) }
            let input = folder.appendingPathComponent("post.json")
            try Data(#"{"title":"   ","author":"ada"}"#.utf8).write(to: input)

            let run = try await ServerProcess.run(.cloudlet, ["invoke", "beforeSave:Posts", "--input", input.path])
            #expect(run.ending != .exit(0))
            let firstLine = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
            let body = try JSONParser.parse(Array(firstLine.utf8))
            #expect(body["code"] == 142)
            #expect(body["error"]?.stringValue?.isEmpty == false)
        }

        @Test func invokeAndHooksListServeTheFindAndLoginKinds() async throws {
            let folder = try ServerProcess.temporaryFolder("invoke")
            defer { try? FileManager.default.removeItem(at: folder) }
            let found = folder.appendingPathComponent("found.json")
            try Data(#"[{"objectId":"a","n":4},{"objectId":"b","n":5}]"#.utf8).write(to: found)
            let afterFind = try await ServerProcess.run(.fixture, ["invoke", "afterFind:Shelf", "--input", found.path])
            #expect(afterFind.ending == .exit(0), "\(afterFind.stderr)")
            #expect(try JSONParser.parse(Array(afterFind.stdout.utf8)) == [["objectId": "b", "n": 5, "seen": true]])
            let user = folder.appendingPathComponent("user.json")
            try Data(#"{"username":"mallory","banned":true}"#.utf8).write(to: user)
            let beforeLogin = try await ServerProcess.run(.fixture, ["invoke", "beforeLogin", "--input", user.path])
            #expect(beforeLogin.ending != .exit(0))
            let refusal = try JSONParser.parse(Array((beforeLogin.stdout.split(separator: "\n").first ?? "").utf8))
            #expect(refusal == ["code": 141, "error": "this account is suspended"])

            let list = try await ServerProcess.run(.fixture, ["hooks", "list"])
            let lines = list.stdout.split(separator: "\n").map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
            for line in ["beforeFind Shelf", "afterFind Shelf", "beforeLogin (app)", "afterLogin (app)", "afterLogout (app)"] {
                #expect(lines.contains(line), "\(list.stdout)")
            }
        }

        @Test func anAppsOwnExecutableCallsItselfByItsOwnNameInItsHelp() async throws {
            let fixture = try await ServerProcess.run(.fixture, ["--help"])
            #expect(fixture.ending == .exit(0), "\(fixture.stderr)")
            #expect(fixture.stdout.contains("USAGE: cloudlet-fixture <subcommand>"), "\(fixture.stdout)")
            let jobs = try await ServerProcess.run(.fixture, ["jobs", "schedule", "--help"])
            #expect(jobs.stdout.contains("USAGE: cloudlet-fixture jobs schedule"), "\(jobs.stdout)")
            let cloudlet = try await ServerProcess.run(.cloudlet, ["--help"])
            #expect(cloudlet.stdout.contains("USAGE: cloudlet <subcommand>"), "\(cloudlet.stdout)")
        }

        @Test func everyCommandOnTheDataFolderNamesItDataAlike() async throws {
            let commands = [
                ["serve"], ["apps", "create"], ["apps", "list"], ["logs"], ["jobs", "list"], ["jobs", "schedule"], ["push", "send"],
                ["push", "status"], ["files", "prune"],
            ]
            for command in commands {
                let help = try await ServerProcess.run(.cloudlet, command + ["--help"])
                #expect(help.stdout.contains("--data <data>"), "\(command): \(help.stdout)")
                #expect(!help.stdout.contains("--data-folder"), "\(command): \(help.stdout)")
            }
        }

        @Test func hooksListShowsEveryHook() async throws {
            let run = try await ServerProcess.run(.cloudlet, ["hooks", "list"])
            #expect(run.ending == .exit(0), "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(lines.count == 3, "\(run.stdout)")
            #expect(lines.contains { $0.first == "beforeSave" && $0.dropFirst().first == "Posts" })
            #expect(lines.contains { $0.first == "afterSave" && $0.dropFirst().first == "Posts" })
            #expect(lines.contains { $0.first == "function" && $0.dropFirst().first == "hello" })
        }
    }
}
