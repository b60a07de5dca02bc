import Cloudlet
import CloudletServer
import CloudletTesting
import Foundation
import Testing

/// The harness shows the pushes hooks produced, resolved to installations and payloads.
@Suite("Pushes in the hook harness")
struct HarnessPushTests {
    /// A reply to a comment alerts the post's author, with an incremented badge; a comment marked
    /// `urgent` also goes to the `moderators` channel, at once, with a collapse id.
    static var hooks: HookRegistry {
        var hooks = HookRegistry()
        hooks.afterSave("Comments") { request in
            guard let author = request.object["postAuthor"]?.stringValue else { return }
            var reply = PushNotification(toUsers: [author], alert: .init(title: "New reply", body: request.object["text"]?.stringValue))
            reply.badge = .increment(by: 1)
            reply.sound = "default"
            reply.threadId = "post-1"
            reply.data = ["commentId": .string(request.object.objectId ?? "")]
            try await request.push(reply)
            if request.object["urgent"]?.boolValue == true {
                try await request.push(
                    PushNotification(
                        audience: .channels(["moderators"]), alert: .init(locKey: "URGENT_COMMENT", locArgs: ["ada"]), badge: .set(1),
                        contentAvailable: true, category: "MODERATE", collapseId: "urgent"))
            }
        }
        return hooks
    }

    @Test func pushesResolveToEachInstallationWithItsBadge() async throws {
        let harness = try HookHarness(registry: Self.hooks)
        try await harness.install(installationId: "ada-phone", deviceToken: "tok-1", badge: 4, user: "ada")
        try await harness.install(installationId: "ada-web", deviceType: "web", deviceToken: "tok-2", user: "ada")
        try await harness.install(installationId: "ada-old", user: "ada")
        try await harness.install(installationId: "mod", deviceType: "android", deviceToken: "tok-3", channels: ["moderators"])
        let comment = try await harness.create("Comments", ["postAuthor": "ada", "text": "Nice post", "urgent": true])

        let pushes = try await harness.pushes()
        #expect(pushes.count == 2)
        let reply = try #require(pushes.first { $0.collapseId == nil })
        #expect(reply.source == "hook")
        #expect(reply.status == .pending)
        #expect(reply.query == ["user": ["$in": [.pointer(className: "_User", objectId: "ada")]]])
        #expect(reply.alert == "Nice post")
        #expect(reply.data["alert"] == ["title": "New reply", "body": "Nice post"])
        #expect(reply.data["badge"] == "Increment")
        #expect(reply.data["commentId"] == .string(try #require(comment.objectId)))
        let badges = Dictionary(uniqueKeysWithValues: reply.recipients.map { ($0.installationId ?? "", $0.data["badge"]) })
        #expect(badges == ["ada-phone": 5, "ada-web": 1], "Increment is each installation's badge plus one; ada-old has no token")
        #expect(reply.recipients.allSatisfy { $0.data["sound"] == "default" && $0.data["threadId"] == "post-1" })

        let urgent = try #require(pushes.first { $0.collapseId == "urgent" })
        #expect(urgent.collapseId == "urgent")
        #expect(urgent.recipients.map(\.deviceToken) == ["tok-3"])
        #expect(urgent.recipients.first?.deviceType == "android")
        #expect(urgent.data["alert"] == ["loc-key": "URGENT_COMMENT", "loc-args": ["ada"]])
        #expect(urgent.data["content-available"] == 1)
        #expect(urgent.data["category"] == "MODERATE")
        #expect(urgent.recipients.first?.data["badge"] == 1)
    }

    @Test func aCollapseIdNoProviderTakesIsRefusedAtOnceAndRecordsNoJob() async throws {
        var hooks = HookRegistry()
        hooks.function("digest") { request in
            var digest = PushNotification(toChannels: ["all"], alert: "Today")
            digest.collapseId = request.params["collapseId"]?.stringValue
            return .string(try await request.push(digest))
        }
        let harness = try HookHarness(registry: hooks)
        for refused in [String(repeating: "d", count: 65), "digest\napns-topic: other"] {
            let error = await #expect(throws: ParseError.self) { try await harness.call("digest", ["collapseId": .string(refused)]) }
            #expect(error?.code == 115)
        }
        #expect(try await harness.pushes().isEmpty)
        _ = try await harness.call("digest", ["collapseId": .string(String(repeating: "d", count: 64))])
        #expect(try await harness.pushes().count == 1)
    }

    @Test func aScheduledPushWithAnExpirationKeepsItsTimes() async throws {
        let clock = ManualClock()
        var hooks = HookRegistry()
        hooks.function("remind") { request in
            var reminder = PushNotification(toChannels: ["all"], alert: "Tomorrow")
            reminder.pushTime = request.context.clock.now.addingTimeInterval(3600)
            reminder.expiration = request.context.clock.now.addingTimeInterval(7200)
            reminder.badge = .increment(by: 3)
            return .string(try await request.push(reminder))
        }
        let harness = try HookHarness(registry: hooks, clock: clock)
        try await harness.install(installationId: "x", deviceToken: "tok", channels: ["all"], badge: 2)
        let id = try await harness.call("remind")
        let push = try #require(try await harness.pushes().first)
        #expect(.string(push.jobId) == id)
        #expect(push.status == .scheduled)
        #expect(push.pushTime == clock.now.addingTimeInterval(3600))
        #expect(push.expiration == clock.now.addingTimeInterval(7200))
        #expect(push.data["badge"] == ["__op": "Increment", "amount": 3])
        #expect(push.recipients.first?.data["badge"] == 5)
    }
}
