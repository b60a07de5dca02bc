import ArgumentParser
import Cloudlet
import CloudletServer

/// `cloudlet push status <app> [id]`: one job's status and counts, or the newest jobs.
struct PushStatusCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "status", abstract: "Show a push job's status and counts (by device type and failure reason), or the newest jobs.")
    }

    @OptionGroup var options: AppDataOptions
    @Argument(help: "The job's id (its _PushStatus objectId). Default: the newest jobs.") var id: String?
    @Option(help: "Without an id, at most this many jobs, the newest. Default 20.") var limit = 20

    func validate() throws {
        guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000") }
    }

    func run() async throws {
        try await options.withExistingStorage { storage in try await show(storage.stores.objects) }
    }

    /// Prints the job asked for, or the newest jobs, from the app's `objects`.
    private func show(_ objects: any ObjectStorage) async throws {
        if let id {
            guard let job = try await objects.fetch("_PushStatus", id: id) else { throw ValidationError("no push job \(id)") }
            if options.json { return print(PushCommand.json(job)) }
            print(PushCommand.line(job))
            for name in ["sentPerType", "failedPerType", "failedPerReason"] {
                guard let counts = job.fields[name]?.objectValue, !counts.isEmpty else { continue }
                print("  \(name): " + counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.intValue ?? 0)" }.joined(separator: " "))
            }
            return
        }
        let newest = ParseQuery("_PushStatus", order: ["-createdAt"], limit: limit)
        for job in try await objects.find(StorageQuery(query: newest, readerIdentities: nil)) {
            print(options.json ? PushCommand.json(job) : PushCommand.line(job))
        }
    }
}
