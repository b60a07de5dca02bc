import ArgumentParser
import Cloudlet
import CloudletWorker

/// `cloudlet worker`: serves the app's hooks to a host's worker pool over the socket it hands the
/// worker as standard input. Hidden: the host starts workers itself.
struct WorkerCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "worker", abstract: "Serve the app's hooks to a Cloudlet host.", shouldDisplay: false)
    }

    @Option(help: "Largest data segment this process may grow to, in MiB; 0 for no limit.") var memoryLimitMb: Int = 0

    func run() async throws {
        do {
            try await CloudletWorker.serve(Hooks.registry(), memoryLimitMb: memoryLimitMb)
        } catch let refused as CloudletWorker.MemoryLimitRefused {
            throw ValidationError(refused.description)
        }
    }
}
