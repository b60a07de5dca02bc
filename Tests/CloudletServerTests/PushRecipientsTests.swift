import Cloudlet
import CloudletServer
import CloudletTesting
import Testing

/// ``PushRecipients`` pages the installations a job's query matches, skipping those without a token.
@Suite("Push recipients")
struct PushRecipientsTests {
    /// A harness with installations of two users on channels, one of them without a token.
    static func harness() async throws -> HookHarness {
        let harness = try HookHarness(registry: HookRegistry())
        try await harness.install(installationId: "a-phone", deviceToken: "tok-a1", channels: ["news", "sport"], user: "ada")
        try await harness.install(installationId: "a-tablet", deviceType: "android", deviceToken: "tok-a2", channels: ["sport"], user: "ada")
        try await harness.install(installationId: "b-phone", deviceToken: "tok-b", channels: ["news"], user: "bob")
        try await harness.install(installationId: "c-phone", channels: ["news"], user: "cy")
        return harness
    }

    static func installationIds(_ harness: HookHarness, _ query: [String: ParseValue], pageSize: Int = 1000) async throws -> [String] {
        let recipients = PushRecipients(storage: harness.runtime.context.stores.objects, query: query)
        var ids: [String] = []
        var cursor: String?
        while true {
            let page = try await recipients.page(after: cursor, limit: pageSize)
            ids += page.compactMap { $0["installationId"]?.stringValue }
            guard page.count == pageSize, let last = page.last?.objectId else { break }
            cursor = last
        }
        return ids.sorted()
    }

    @Test func usersChannelsAndQueriesReachTheirInstallationsWithATokenOnly() async throws {
        let harness = try await Self.harness()
        let users: [String: ParseValue] = ["user": ["$in": [.pointer(className: "_User", objectId: "ada"), .pointer(className: "_User", objectId: "cy")]]]
        #expect(try await Self.installationIds(harness, users) == ["a-phone", "a-tablet"])
        #expect(try await Self.installationIds(harness, PushNotification.Audience.users(["bob"]).query) == ["b-phone"])
        #expect(try await Self.installationIds(harness, ["channels": ["$in": ["news"]]]) == ["a-phone", "b-phone"])
        #expect(try await Self.installationIds(harness, ["channels": ["$in": ["sport", "weather"]]]) == ["a-phone", "a-tablet"])
        #expect(try await Self.installationIds(harness, ["deviceType": "android"]) == ["a-tablet"])
        #expect(try await Self.installationIds(harness, ["channels": ["$all": ["news", "sport"]]]) == ["a-phone"])
        #expect(try await Self.installationIds(harness, ["installationId": ["$regex": "phone$"], "channels": ["$nin": ["sport"]]]) == ["b-phone"])
        #expect(try await Self.installationIds(harness, [:]) == ["a-phone", "a-tablet", "b-phone"])
    }

    @Test func pagesResumeAfterTheLastInstallation() async throws {
        let harness = try await Self.harness()
        #expect(try await Self.installationIds(harness, [:], pageSize: 1) == ["a-phone", "a-tablet", "b-phone"])
    }

    @Test func aQueryThatCannotRunThrowsItsCode() async throws {
        let harness = try await Self.harness()
        let recipients = PushRecipients(storage: harness.runtime.context.stores.objects, query: ["deviceType": ["$near": 1]])
        await #expect(throws: ParseError.invalidQuery("unsupported query operator $near")) { try await recipients.page(after: nil) }
    }
}
