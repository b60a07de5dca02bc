import Cloudlet
import Foundation

/// The conversation between two members: one `MessageThread` object per thread id, readable by the
/// two of them only, pointing at the latest message.
enum MessageThreads {
    /// The class that holds the threads.
    static let className = "MessageThread"

    /// The id of the thread between two users: their ids sorted and joined by `:`, the same
    /// whichever of them sends.
    static func threadId(between first: String, and second: String) -> String {
        [first, second].sorted().joined(separator: ":")
    }

    /// Points the thread of `message` at it, creating the thread on its first message. A message
    /// older than the thread's latest one (a replayed after hook) leaves the thread as it is.
    static func record(_ message: ParseObject, senderId: String, recipientId: String, store: any HookStore) async throws {
        guard let threadId = message["threadId"], let pointer = message.pointer, let sentAt = message.createdAt else { return }
        let latest: [String: ParseValue] = ["lastMessage": pointer, "lastMessageAt": .date(sentAt)]
        let query = ParseQuery(className).whereKey("threadId", equalTo: threadId).limit(1)
        if var thread = try await store.find(query).first {
            if let current = thread["lastMessageAt"]?.dateValue, current > sentAt { return }
            thread.fields = latest
            _ = try await store.save(thread)
        } else {
            var fields = latest
            fields["threadId"] = threadId
            fields["participants"] = [
                .pointer(className: "_User", objectId: senderId), .pointer(className: "_User", objectId: recipientId),
            ]
            let readers = ParseACL.only(readers: [senderId, recipientId], writers: [])
            _ = try await store.save(ParseObject(className: className, acl: readers, fields: fields))
        }
    }
}
