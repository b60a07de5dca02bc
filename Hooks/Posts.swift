import Cloudlet
import Foundation

/// The rules of the `Posts` class.
enum Posts {
    /// The longest title accepted, in characters.
    static let maximumTitleLength = 140

    /// Validates and normalises a post before it is saved.
    @Sendable static func normalize(_ request: inout BeforeSaveRequest) async throws {
        let title = request.object["title"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !title.isEmpty else { throw HookError.validation("title must not be empty") }
        guard title.count <= maximumTitleLength else {
            throw HookError.validation("title must be at most \(maximumTitleLength) characters")
        }
        request.object["title"] = .string(title)
        if let tags = request.object["tags"] {
            guard let list = tags.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw HookError.validation("tags must be a list of strings")
            }
            var unique: [ParseValue] = []
            for tag in list.compactMap(\.stringValue) {
                let normalized = ParseValue.string(tag.trimmingCharacters(in: .whitespaces).lowercased())
                if normalized != "", !unique.contains(normalized) { unique.append(normalized) }
            }
            request.object["tags"] = .array(unique)
        }
        let body = request.object["body"]?.stringValue ?? ""
        request.object["wordCount"] = .number(Double(body.split(whereSeparator: { $0.isWhitespace }).count))
    }

    /// Counts a new post for its author in `AuthorStats` (one object per author).
    @Sendable static func countForAuthor(_ request: AfterSaveRequest) async throws {
        guard request.original == nil, let author = request.object["author"]?.stringValue else { return }
        let store = request.store.asMaster
        let existing = try await store.find(ParseQuery("AuthorStats").whereKey("author", equalTo: .string(author)).limit(1))
        if var stats = existing.first {
            stats.fields = ["posts": ["__op": "Increment", "amount": 1]]
            _ = try await store.save(stats)
        } else {
            _ = try await store.save(ParseObject(className: "AuthorStats", fields: ["author": .string(author), "posts": 1]))
        }
        request.logger.info("counted post", metadata: ["author": "\(author)"])
    }
}
