/// A set of hooks that make up one app's business logic.
///
/// ```swift
/// public enum AppHooks: HookModule {
///     public static func register(_ hooks: inout HookRegistry) {
///         hooks.function("hello") { request in
///             .string("Hello, \(request.params["name"]?.stringValue ?? "world")!")
///         }
///     }
/// }
/// ```
public protocol HookModule {
    /// Adds the module's hooks to `hooks`.
    static func register(_ hooks: inout HookRegistry)
}

extension HookModule {
    /// A registry holding exactly this module's hooks.
    public static func registry() -> HookRegistry {
        var registry = HookRegistry()
        register(&registry)
        return registry
    }
}
