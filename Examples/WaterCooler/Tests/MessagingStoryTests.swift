import Cloudlet
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing
import WaterCoolerHooks

/// The messaging stories of WaterCooler, driven over HTTP as the iOS app drives them.
@Suite("WaterCooler: messages")
struct MessagingStoryTests {
    @Test func twoColleaguesExchangeMessagesNobodyElseCanRead() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let bob = try await client.signUp("bob", "Bob", "Builder")
            let carol = try await client.signUp("carol", "Carol", "Shaw")
            let threadId = [ada.id, bob.id].sorted().joined(separator: ":")

            let sent = try await client.send(.post, "/classes/Messages", ["recipient": bob.pointer, "text": " Lunch? "], as: ada)
            #expect(sent.status == 201)
            #expect(sent["threadId"] == .string(threadId))
            let messageId = try #require(sent["objectId"]?.stringValue)
            let received = try await client.send(.get, "/classes/Messages/\(messageId)", as: bob)
            #expect(received.status == 200)
            #expect(received["text"] == "Lunch?")
            #expect(received["sender"] == ada.pointer)
            #expect(received["recipient"] == bob.pointer)

            let reply = try await client.send(.post, "/classes/Messages", ["recipient": .string(ada.id), "text": "Yes, at noon"], as: bob)
            #expect(reply.status == 201)
            #expect(reply["threadId"] == .string(threadId), "the thread id is the same whichever of the two sends")
            let conversation = try await client.find(
                "/classes/Messages", ["where": ["threadId": .string(threadId)], "order": "createdAt"], as: ada)
            #expect(conversation.map { $0["text"] } == ["Lunch?", "Yes, at noon"])

            let threads = try await client.find("/classes/MessageThread", as: bob)
            #expect(threads.count == 1)
            #expect(threads.first?["threadId"] == .string(threadId))
            #expect(threads.first?["lastMessage"] == .pointer(className: "Messages", objectId: try #require(reply["objectId"]?.stringValue)))

            #expect(try await client.send(.get, "/classes/Messages/\(messageId)", as: carol)["code"] == 101)
            #expect(try await client.find("/classes/Messages", as: carol).isEmpty)
            #expect(try await client.find("/classes/MessageThread", as: carol).isEmpty)
            #expect(try await client.find("/classes/Messages", as: nil).isEmpty)
            #expect(try await client.find("/classes/MessageThread", as: nil).isEmpty)
            let threadObjectId = try #require(threads.first?["objectId"]?.stringValue)
            #expect(try await client.send(.get, "/classes/MessageThread/\(threadObjectId)", as: carol)["code"] == 101)

            let editedByRecipient = try await client.send(.put, "/classes/Messages/\(messageId)", ["text": "No"], as: bob)
            #expect(editedByRecipient["code"] == 101, "only the sender may change a message")
            let editedBySender = try await client.send(
                .put, "/classes/Messages/\(messageId)", ["text": "Lunch at noon?", "recipient": carol.pointer], as: ada)
            #expect(editedBySender.status == 200)
            #expect(try await client.send(.get, "/classes/Messages/\(messageId)", as: bob)["recipient"] == bob.pointer)
        }
    }

    @Test func messagesWithoutASenderTextOrMemberRecipientAreRefused() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let bob = try await client.signUp("bob", "Bob", "Builder")

            let anonymous = try await client.send(.post, "/classes/Messages", ["recipient": bob.pointer, "text": "Hi"], token: nil)
            #expect(anonymous.status == 403)
            #expect(anonymous["code"] == 119)
            let empty = try await client.send(.post, "/classes/Messages", ["recipient": bob.pointer, "text": "   "], as: ada)
            #expect(empty["code"] == 142)
            #expect(empty["error"] == "text must not be empty")
            let stranger = try await client.send(
                .post, "/classes/Messages", ["recipient": .pointer(className: "_User", objectId: "nobody1234"), "text": "Hi"], as: ada)
            #expect(stranger["code"] == 142)
            #expect(stranger["error"] == "recipient nobody1234 is not a member")
            let missing = try await client.send(.post, "/classes/Messages", ["text": "Hi"], as: ada)
            #expect(missing["code"] == 142)
            let toSelf = try await client.send(.post, "/classes/Messages", ["recipient": ada.pointer, "text": "Hi"], as: ada)
            #expect(toSelf["code"] == 142)

            let stored = try await client.get("/classes/Messages", query: ["count": 1, "limit": 0], master: true)
            #expect(stored["count"] == 0)
        }
    }

    @Test func theRecipientIsAlertedOfANewMessage() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let bob = try await client.signUp("bob", "Bob", "Builder")
            let sent = try await client.send(.post, "/classes/Messages", ["recipient": bob.pointer, "text": "Lunch?"], as: ada)
            let messageId = try #require(sent["objectId"]?.stringValue)

            let jobs = try #require(try await client.get("/classes/_PushStatus", master: true)["results"]?.arrayValue)
            #expect(jobs.count == 1)
            let job = try #require(jobs.first)
            #expect(job["status"] == "pending")
            #expect(job["source"] == "hook")
            #expect(try JSONParser.parse(try #require(job["query"]?.stringValue)) == ["user": ["$in": [bob.pointer]]])
            let payload = try JSONParser.parse(try #require(job["payload"]?.stringValue))
            #expect(payload["alert"] == "New message from Ada Lovelace")
            #expect(payload["threadId"] == sent["threadId"])
            #expect(payload["messageId"] == .string(messageId))
            #expect(try await client.find("/classes/_PushStatus", as: bob).isEmpty, "push jobs are for the master key only")

            _ = try await client.send(.put, "/classes/Messages/\(messageId)", ["text": "Lunch today?"], as: ada)
            let afterEdit = try await client.get("/classes/_PushStatus", query: ["count": 1, "limit": 0], master: true)
            #expect(afterEdit["count"] == 1, "an edit alerts nobody")
        }
    }

    @Test func theRecipientsDeviceIsSentTheAlert() async throws {
        let logs = CapturedLogs()
        try await ParseTestClient.withRouter(WaterCoolerHooks.self, deliveringPushesLoggingTo: logs) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let bob = try await client.signUp("bob", "Bob", "Builder")
            let token = "b0b0000000000000000000000000000000000000000000000000000000000001"
            let installed = try await client.send(
                .post, "/installations", ["installationId": "bob-iphone", "deviceType": "ios", "deviceToken": .string(token)], as: bob)
            #expect(installed.status == 201)
            let sendersToken = "ada0000000000000000000000000000000000000000000000000000000000001"
            _ = try await client.send(
                .post, "/installations", ["installationId": "ada-iphone", "deviceType": "ios", "deviceToken": .string(sendersToken)], as: ada)

            let sent = try await client.send(.post, "/classes/Messages", ["recipient": bob.pointer, "text": "Lunch?"], as: ada)
            #expect(sent.status == 201)
            let job = try #require(try await client.endedPushJobs().first)
            #expect(job["status"] == "succeeded")
            #expect(job["numSent"] == 1, "only the recipient's device")
            #expect(job["numFailed"] == 0)

            let delivered = logs.all.filter { $0.message == "push notification (log provider)" }
            #expect(delivered.count == 1)
            #expect(delivered.first?.metadata["token"] == "\(token.prefix(8))…")
            #expect(delivered.first?.metadata["deviceType"] == "ios")
            let payload = try JSONParser.parse(Array(try #require(delivered.first?.metadata["payload"]).utf8))
            #expect(payload["alert"] == "New message from Ada Lovelace")
        }
    }

    @Test func anOpenConversationShowsANewMessageAsItIsSent() async throws {
        try await ParseTestClient.withListeningServer(WaterCoolerHooks.self, liveQueryClasses: ["Messages"]) { client, port in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let bob = try await client.signUp("bob", "Bob", "Builder")
            let carol = try await client.signUp("carol", "Carol", "Shaw")
            let thread: [String: ParseValue] = ["threadId": .string([ada.id, bob.id].sorted().joined(separator: ":"))]
            let keys: [String: ParseValue] = ["clientKey": .string(client.clientKey)]

            // Bob has the conversation open; Carol subscribes to the same thread with her session.
            try await LiveQuerySocket.with(port: port) { bobsApp in
                try await LiveQuerySocket.with(port: port) { carolsApp in
                    #expect(await bobsApp.connect("test", keys: keys, sessionToken: bob.sessionToken)?["op"] == "connected")
                    #expect(await bobsApp.subscribe(1, "Messages", where: thread)?["op"] == "subscribed")
                    #expect(await carolsApp.connect("test", keys: keys, sessionToken: carol.sessionToken)?["op"] == "connected")
                    #expect(await carolsApp.subscribe(1, "Messages", where: thread)?["op"] == "subscribed")

                    let sent = try await client.send(.post, "/classes/Messages", ["recipient": bob.pointer, "text": " Lunch at noon? "], as: ada)
                    #expect(sent.status == 201)
                    let event = await bobsApp.next()
                    #expect(event?["op"] == "create")
                    #expect(event?["object"]?["objectId"] == sent["objectId"])
                    #expect(event?["object"]?["text"] == "Lunch at noon?", "the message as the beforeSave hook stored it")
                    #expect(event?["object"]?["sender"] == ada.pointer)

                    let edited = try await client.send(.put, "/classes/Messages/\(sent["objectId"]?.stringValue ?? "")", ["text": "Lunch at one?"], as: ada)
                    #expect(edited.status == 200)
                    let update = await bobsApp.next()
                    #expect(update?["op"] == "update")
                    #expect(update?["object"]?["text"] == "Lunch at one?")
                    #expect(update?["original"]?["text"] == "Lunch at noon?")

                    #expect(await carolsApp.next(within: .seconds(1)) == nil, "the message's ACL lets only Ada and Bob read it")
                }
            }
        }
    }
}
