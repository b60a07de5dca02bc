import Cloudlet
import Foundation

/// The hooks of the default app (`dev`), which `swift run cloudlet serve` serves.
///
/// - `beforeSave("Posts")`: a post needs a title of 1 to 140 characters (trimmed); its tags are
///   made lowercase, trimmed and unique; `wordCount` is computed from the body.
/// - `afterSave("Posts")`: keeps the number of posts per author in `AuthorStats`.
/// - `function("hello")`: greets `name` (or the world).
public enum AppHooks: HookModule {
    public static func register(_ hooks: inout HookRegistry) {
        hooks.beforeSave("Posts", Posts.normalize)
        hooks.afterSave("Posts", Posts.countForAuthor)
        hooks.function("hello") { request in
            let name = request.params["name"]?.stringValue?.trimmingCharacters(in: .whitespaces) ?? ""
            return .string("Hello, \(name.isEmpty ? "world" : name)!")
        }
    }
}
