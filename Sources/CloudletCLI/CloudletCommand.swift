import ArgumentParser
import Cloudlet
import Foundation

/// The `cloudlet` command line for an app whose hooks are `Hooks`: `serve`, `apps`, `migrate`, `invoke`, `hooks`,
/// `logs`, `push` and `jobs`, and the hidden `worker` that a host starts to run the hooks in a separate process (through
/// the hidden `confine`, which fences it in first).
/// An app's own executable is one line: `await CloudletCommand<MyHooks>.runCommandLine()`; its help
/// and errors call it by its own name (the name it was run by), not `cloudlet`.
public struct CloudletCommand<Hooks: HookModule>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "cloudlet",
            abstract: "Runs Swift hooks behind a Parse-compatible REST API.",
            subcommands: [
                ServeCommand<Hooks>.self, AppsCommand.self, InvokeCommand<Hooks>.self, HooksCommand<Hooks>.self, LogsCommand.self, PushCommand.self,
                FilesCommand.self, JobsCommand<Hooks>.self, MigrateCommand.self, WorkerCommand<Hooks>.self, ConfineCommand.self,
            ])
    }

    public init() {}

    /// Parses the process's arguments and runs the chosen subcommand, exiting with its status. The
    /// values of key flags are first wiped from the process's command line (see `KeyFlags`).
    public static func runCommandLine() async {
        KeyFlags.scrubFromProcessArguments()
        await main()
    }
}
