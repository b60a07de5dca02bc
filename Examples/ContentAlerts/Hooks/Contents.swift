import Cloudlet
import Foundation

/// The rules of `Contents`: what a content is, who may publish it, and the alert a new one sends.
///
/// Clients list contents with plain Parse queries: newest first with `order=-timestamp`, one type
/// with `where={"type":"blog"}`, one tag with `where={"tags":"swift"}`.
enum Contents {
    /// The class that holds the contents.
    static let className = "Contents"
    /// The kinds of content published.
    static let types: Set<String> = ["blog", "white paper"]
    /// The role whose tokens may publish.
    static let publisherRole = "editor"
    /// The push channel that hears of every new content.
    static let channel = "notifications"

    /// Checks a content before it is saved: the publisher (master key, or an editor's `authToken`,
    /// which is not stored), a title, a known `type`, `tags` as lowercase unique words, and a
    /// `timestamp` (now, if none is given). Everyone may read contents; only the master key changes them.
    @Sendable static func prepare(_ request: inout BeforeSaveRequest) async throws {
        let token = request.object["authToken"]?.stringValue
        request.object["authToken"] = nil
        if !request.isMaster {
            guard let token, let grant = try await Authentication.grant(for: token, context: request.context),
                grant.role == publisherRole
            else { throw HookError.unauthorized("publishing needs an editor's authToken from authenticate") }
            request.object["author"] = .string(grant.username)
        }
        let title = request.object["title"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !title.isEmpty else { throw HookError.validation("title must not be empty") }
        request.object["title"] = .string(title)
        guard let type = request.object["type"]?.stringValue, types.contains(type) else {
            throw HookError.validation("type must be one of: \(types.sorted().joined(separator: ", "))")
        }
        request.object["tags"] = .array(try tags(request.object["tags"]).map(ParseValue.string))
        switch request.object["timestamp"] {
        case nil, .null?: request.object["timestamp"] = .date(request.clock.now)
        case let value?: guard value.parseType == "Date" else { throw HookError.validation("timestamp must be a Date") }
        }
        request.object.acl = ParseACL([ParseACL.publicEntry: .init(read: true)])
    }

    /// Announces a new content on the `notifications` channel with its type and timestamp.
    @Sendable static func announce(_ request: AfterSaveRequest) async throws {
        guard request.original == nil, let id = request.object.objectId,
            let type = request.object["type"]?.stringValue, let timestamp = request.object["timestamp"]?.dateValue
        else { return }
        let title = request.object["title"]?.stringValue ?? ""
        try await request.push(
            PushNotification(
                toChannels: [channel], alert: "New \(type): \(title)",
                data: ["type": .string(type), "timestamp": .string(ParseDate.string(from: timestamp)), "contentId": .string(id)]))
    }

    /// Tags trimmed, lowercase, without blanks or repeats, in the order given.
    private static func tags(_ value: ParseValue?) throws -> [String] {
        guard let value, !value.isNull else { return [] }
        guard let list = value.arrayValue?.map(\.stringValue), !list.contains(nil) else {
            throw HookError.validation("tags must be a list of strings")
        }
        var unique: [String] = []
        for tag in list.compactMap({ $0?.trimmingCharacters(in: .whitespaces).lowercased() }) where !tag.isEmpty && !unique.contains(tag) {
            unique.append(tag)
        }
        return unique
    }
}
