import Cloudlet
import Foundation

/// The hooks of the flooding app, each misbehaving as a hostile or broken hook would, under a 1 s
/// limit: `spin` loops until its worker is killed at its deadline; `hang` waits, using no CPU,
/// until then; `trap` force-unwraps nil; `allocate` takes memory until its worker reaches its
/// limit; `print` prints lines without end until it is killed. This executable is their worker.
enum TenantHooks: HookModule {
    /// The misbehaving hooks the fault phase calls, beside `spin`: all four, or those named in
    /// `FAULTS` (comma-separated), to tell which one costs the steady app.
    static let faults = (ProcessInfo.processInfo.environment["FAULTS"] ?? "hang,trap,allocate,print").split(separator: ",").map(String.init)

    static func register(_ hooks: inout HookRegistry) {
        hooks.function("spin", timeLimit: .seconds(1)) { _ in
            var turns = 0
            while alwaysTrue() { turns &+= 1 }
            return .number(Double(turns))
        }
        hooks.function("hang", timeLimit: .seconds(1)) { _ in
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            return nil
        }
        hooks.function("trap", timeLimit: .seconds(1)) { request in
            .string(request.params["missing"]!.stringValue!)
        }
        hooks.function("allocate", timeLimit: .seconds(1)) { _ in
            var blocks: [[UInt8]] = []
            while alwaysTrue() { blocks.append([UInt8](repeating: 1, count: 8 << 20)) }
            return .number(Double(blocks.count))
        }
        hooks.function("print", timeLimit: .seconds(1)) { _ in
            var lines = 0
            while alwaysTrue() {
                lines &+= 1
                print("line \(lines) of a hook that prints without end, as a debugging loop left in would")
            }
            return .number(Double(lines))
        }
    }

    /// True, in a way the optimizer cannot see through.
    @inline(never) static func alwaysTrue() -> Bool { CommandLine.arguments.count >= 0 }
}
