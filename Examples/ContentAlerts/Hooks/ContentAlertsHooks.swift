import Cloudlet

/// The hooks of ContentAlerts, a content publishing back end.
///
/// - `beforeSave("Users")`: the app's own accounts (not `_User`), managed with the master key only;
///   a `password` is replaced by a salted SHA-256 digest and never stored.
/// - `function("authenticate")`: checks `username`, `password` and `role` against `Users` and
///   answers a random token; any mismatch is the one error 101 "invalid credentials".
/// - `beforeSave("Contents")`: publishing needs the master key or an editor's token; checks the
///   title and `type` ("blog" or "white paper"), normalises `tags`, defaults `timestamp` to now.
/// - `afterSave("Contents")`: a new content is announced to the `notifications` push channel with
///   its type and timestamp.
public enum ContentAlertsHooks: HookModule {
    public static func register(_ hooks: inout HookRegistry) {
        hooks.beforeSave(Accounts.className, Accounts.prepare)
        hooks.function("authenticate", input: Credentials.self, Authentication.authenticate)
        hooks.beforeSave(Contents.className, Contents.prepare)
        hooks.afterSave(Contents.className, Contents.announce)
    }
}
