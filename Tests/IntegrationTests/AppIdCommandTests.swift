import Cloudlet
import Foundation
import Testing

extension ProcessTests {
    /// `cloudlet apps create` applies the app id rule: unique regardless of case, no reserved names.
    @Suite struct AppIdCommandTests {
        @Test func aCaseTwinAndAReservedNameAreRefusedWithTheirReason() async throws {
            let data = try ServerProcess.temporaryFolder("app-ids")
            defer { try? FileManager.default.removeItem(at: data) }
            _ = try await RegistryTests.apps(["create", "shop"], data: data)
            let twin = try await ServerProcess.run(.cloudlet, ["apps", "create", "Shop", "--data", data.path])
            #expect(twin.ending != .exit(0))
            #expect(twin.stderr.contains("differs from the app shop only in case"), "\(twin.stderr)")
            let reserved = try await ServerProcess.run(.cloudlet, ["apps", "create", "nul", "--data", data.path])
            #expect(reserved.ending != .exit(0))
            #expect(reserved.stderr.contains("reserve"), "\(reserved.stderr)")
            #expect(try await RegistryTests.apps(["list"], data: data).split(separator: "\n").count == 1)
        }
    }
}
