import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet jobs …`: an app's background jobs. `list`, `status`, `schedule` and `unschedule` work on
/// the registry and the app's database (in the data folder, or the PostgreSQL database), whether
/// or not a server runs on them; a running server applies a schedule change within half a second.
/// `run` asks the running server to start a job, through `POST /jobs/:name` with the app's master key.
struct JobsCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "jobs", abstract: "List, run, schedule and follow an app's background jobs.",
            subcommands: [JobsListCommand<Hooks>.self, JobsRunCommand.self, JobsStatusCommand.self, JobsScheduleCommand<Hooks>.self, JobsUnscheduleCommand.self])
    }
}

/// Job runs (`_JobStatus` objects) as the `jobs` commands print and find them.
enum JobRuns {
    /// A run as one line: id, job, status, source, times and message.
    static func line(_ run: ParseObject) -> String {
        let fields = run.fields
        var line = "\(run.objectId ?? "") \(fields["jobName"]?.stringValue ?? "?") \(fields["status"]?.stringValue ?? "?")"
        line += " source=\(fields["source"]?.stringValue ?? "?")"
        if let createdAt = run.createdAt { line += " started=\(ParseDate.string(from: createdAt))" }
        if let finishedAt = fields["finishedAt"]?["iso"]?.stringValue { line += " finished=\(finishedAt)" }
        if let message = fields["message"]?.stringValue { line += " message=\(JSONWriter.quoted(message))" }
        return line
    }

    /// A run as JSON: its fields with its id and timestamps.
    static func json(_ run: ParseObject) -> String {
        var members = run.fields
        members["objectId"] = run.objectId.map(ParseValue.string)
        members["createdAt"] = run.createdAt.map { .string(ParseDate.string(from: $0)) }
        members["updatedAt"] = run.updatedAt.map { .string(ParseDate.string(from: $0)) }
        return JSONWriter.string(.object(members))
    }

    /// The newest runs, of `job` only when given.
    static func newestRuns(_ objects: any ObjectStorage, job: String? = nil, limit: Int) async throws -> [ParseObject] {
        let constraints: [String: ParseValue] = job.map { ["jobName": .string($0)] } ?? [:]
        let query = ParseQuery(JobStatus.className, constraints: constraints, order: ["-createdAt"], limit: limit)
        return try await objects.find(StorageQuery(query: query, readerIdentities: nil))
    }
}
