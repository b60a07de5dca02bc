import Cloudlet
import Foundation

/// The rules of a member's profile (the `_User` class), on signup and on every update.
enum MemberProfiles {
    /// The profile fields that must hold text that is not blank.
    static let requiredNames = ["firstName", "lastName"]

    /// Trims the names and title and checks the profile's fields.
    @Sendable static func validate(_ request: inout BeforeSaveRequest) async throws {
        for field in requiredNames {
            let name = request.object[field]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard !name.isEmpty else { throw HookError.validation("\(field) must not be empty") }
            request.object[field] = .string(name)
        }
        if let title = request.object["title"], !title.isNull {
            guard let text = title.stringValue else { throw HookError.validation("title must be text") }
            request.object["title"] = .string(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        if let picture = request.object["profilePicture"], !picture.isNull, picture.parseType != "File" {
            throw HookError.validation("profilePicture must be a File")
        }
    }
}
