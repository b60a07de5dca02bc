import ArgumentParser
import Cloudlet
import CloudletServer

/// `cloudlet jobs status <app> [id]`: one run's status, or the newest runs.
struct JobsStatusCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "status", abstract: "Show a job run's status and message, or the newest runs.")
    }

    @OptionGroup var options: AppDataOptions
    @Argument(help: "The run's id (its _JobStatus objectId). Default: the newest runs.") var id: String?
    @Option(help: "Without an id, only this job's runs.") var job: String?
    @Option(help: "Without an id, at most this many runs, the newest. Default 20.") var limit = 20

    func validate() throws {
        guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
    }

    func run() async throws {
        try await options.withExistingStorage { storage in try await show(storage.stores.objects) }
    }

    /// Prints the run asked for, or the newest runs, from the app's `objects`.
    private func show(_ objects: any ObjectStorage) async throws {
        if let id {
            guard let run = try await objects.fetch(JobStatus.className, id: id) else { throw ValidationError("no job run \(id)") }
            print(options.json ? JobRuns.json(run) : JobRuns.line(run))
            return
        }
        let runs = try await JobRuns.newestRuns(objects, job: job, limit: limit)
        if runs.isEmpty, !options.json { print(job.map { "no runs of job \($0)" } ?? "no runs") }
        for run in runs { print(options.json ? JobRuns.json(run) : JobRuns.line(run)) }
    }
}
