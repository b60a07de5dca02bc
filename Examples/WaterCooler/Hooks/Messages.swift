import Cloudlet
import Foundation

/// The rules of the `Messages` class: who sends, to whom, who may read, and what follows a message.
enum Messages {
    /// Sets the sender from the session, checks the text and the recipient, computes the thread id
    /// and limits the message to its two members. On an update only the text may change.
    @Sendable static func prepare(_ request: inout BeforeSaveRequest) async throws {
        guard let user = request.user else { throw HookError.unauthorized("log in to send messages") }
        let text = request.object["text"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !text.isEmpty else { throw HookError.validation("text must not be empty") }
        request.object["text"] = .string(text)
        if let original = request.original {
            for field in ["sender", "recipient", "threadId"] { request.object[field] = original[field] }
            request.object.acl = original.acl
            return
        }
        let recipientId = try await recipient(of: request.object, store: request.store)
        guard recipientId != user.id else { throw HookError.validation("you cannot send a message to yourself") }
        request.object["sender"] = .pointer(className: "_User", objectId: user.id)
        request.object["recipient"] = .pointer(className: "_User", objectId: recipientId)
        request.object["threadId"] = .string(MessageThreads.threadId(between: user.id, and: recipientId))
        request.object.acl = .only(readers: [user.id, recipientId], writers: [user.id])
    }

    /// For a new message: brings its thread up to date and records a push job for the recipient.
    @Sendable static func deliver(_ request: AfterSaveRequest) async throws {
        guard request.original == nil, let messageId = request.object.objectId,
            let senderId = request.object["sender"]?.pointerValue?.objectId,
            let recipientId = request.object["recipient"]?.pointerValue?.objectId,
            let threadId = request.object["threadId"]
        else { return }
        let store = request.store.asMaster
        try await MessageThreads.record(request.object, senderId: senderId, recipientId: recipientId, store: store)
        let sender = try await store.get("_User", id: senderId)
        let name = [sender?["firstName"]?.stringValue, sender?["lastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        try await request.push(
            PushNotification(
                toUsers: [recipientId], alert: "New message from \(name.isEmpty ? "a colleague" : name)",
                data: ["threadId": threadId, "messageId": .string(messageId)]))
    }

    /// The id of the member a new message is for: `recipient` is a `_User` pointer or a user id,
    /// and must name an existing member.
    private static func recipient(of message: ParseObject, store: any HookStore) async throws -> String {
        let value = message["recipient"]
        let id: String?
        if let pointer = value?.pointerValue {
            id = pointer.className == "_User" ? pointer.objectId : nil
        } else {
            id = value?.stringValue
        }
        guard let id, !id.isEmpty else { throw HookError.validation("recipient must be a _User pointer or a user id") }
        guard try await store.asMaster.get("_User", id: id) != nil else {
            throw HookError.validation("recipient \(id) is not a member")
        }
        return id
    }
}
