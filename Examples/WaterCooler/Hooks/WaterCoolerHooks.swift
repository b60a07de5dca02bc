import Cloudlet

/// The hooks of WaterCooler, the one-to-one messaging back end of a company chat app.
///
/// - `beforeSave("_User")`: a member's profile has a first and last name; `title` is text and
///   `profilePicture` a Parse `File`.
/// - `beforeSave("Messages")`: the sender is the logged-in user; the text must not be empty; the
///   recipient must be a member; the thread id is the two user ids sorted; only sender and
///   recipient may read the message, and only the sender may change it.
/// - `afterSave("Messages")`: keeps the `MessageThread` of the two members pointing at its latest
///   message, and records a push job for the recipient.
public enum WaterCoolerHooks: HookModule {
    public static func register(_ hooks: inout HookRegistry) {
        hooks.beforeSave("_User", MemberProfiles.validate)
        hooks.beforeSave("Messages", Messages.prepare)
        hooks.afterSave("Messages", Messages.deliver)
    }
}
