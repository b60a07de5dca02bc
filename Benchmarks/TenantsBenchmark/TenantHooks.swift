import Cloudlet

/// The hooks of the flooding app: `spin` loops until its worker is killed at its deadline, as a
/// hostile or broken hook would. This executable is its own worker for them.
enum TenantHooks: HookModule {
    static func register(_ hooks: inout HookRegistry) {
        hooks.function("spin", timeLimit: .seconds(1)) { _ in
            var turns = 0
            while alwaysTrue() { turns &+= 1 }
            return .number(Double(turns))
        }
    }

    /// True, in a way the optimizer cannot see through.
    @inline(never) static func alwaysTrue() -> Bool { CommandLine.arguments.count >= 0 }
}
