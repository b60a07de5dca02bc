import ArgumentParser
import Cloudlet
import CloudletWorker

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
            for line in CloudletWorker.hookList(Hooks.registry()) { print(line) }
        }
    }
}
