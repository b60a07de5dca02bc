import ArgumentParser
import Cloudlet
import Foundation

/// `cloudlet hooks list`: the app's hooks with their time limits.
struct HooksCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "hooks", abstract: "List the app's hooks.", subcommands: [List.self])
    }

    struct List: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "List each hook: kind, class or function, time limit, rate limit.")
        }

        func run() async throws {
            for hook in Hooks.registry().summary {
                let limit = hook.rateLimit.map { "  at most \($0.count) per \($0.window) per \($0.scope.rawValue)" } ?? ""
                let name = hook.kind.definition.binding == .nothing ? "(app)" : hook.name
                print("\(hook.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) \(name)  (\(hook.timeLimit))\(limit)")
            }
        }
    }
}
