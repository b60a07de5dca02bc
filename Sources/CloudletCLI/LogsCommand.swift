import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet logs <app>`: an app's hook runs — hook, outcome, time taken, error and the lines the
/// hook logged — read straight from the app's database (its file in the data folder, or the
/// PostgreSQL database every node writes), so it works whether or not a server is running.
/// `--follow` keeps polling for new runs.
struct LogsCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "logs", abstract: "Show an app's hook runs and the lines its hooks logged.")
    }

    @OptionGroup var options: AppDataOptions
    @Option(help: "Only this hook's runs, as kind:name (function:hello, beforeSave:Posts).") var hook: String?
    @Option(help: "Only runs since a time: a duration back (90s, 10m, 2h, 7d) or a date (2025-01-31T12:00:00.000Z).") var since: String?
    @Option(help: "At most this many runs, the newest. Default 100.") var limit = 100
    @Flag(help: "Keep printing new runs as they are written.") var follow = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        if let since, HookRunQuery.time(since, before: Date()) == nil {
            throw ValidationError("--since must be a duration such as 10m or a date such as 2025-01-31T12:00:00.000Z")
        }
    }

    func run() async throws {
        try await options.withExistingStorage { storage in try await show(storage.stores.hookRuns) }
    }

    /// Prints the runs the options ask for from `hookRuns`, then, with `--follow`, each new one.
    private func show(_ hookRuns: any HookRunStorage) async throws {
        var query = HookRunQuery(hook: hook, since: since.flatMap { HookRunQuery.time($0, before: Date()) }, limit: limit)
        while true {
            let runs = try await hookRuns.hookRuns(query)
            // Written unbuffered, so that a follower reading a pipe sees each run at once.
            for run in runs { FileHandle.standardOutput.write(Data(((options.json ? JSONWriter.string(run.json) : Self.text(run)) + "\n").utf8)) }
            guard follow else { return }
            query.after = runs.last?.sequence ?? query.after
            query.since = nil
            query.limit = 1000
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    /// A run as text: a line for the run, then its lines indented.
    static func text(_ run: HookRun) -> String {
        var text = "\(ParseDate.string(from: run.startedAt)) \(run.hook) \(run.outcome.rawValue) \(String(format: "%.1fms", run.durationMilliseconds)) request_id=\(run.requestId)"
        if let error = run.error { text += " error=\(JSONWriter.quoted(error))" }
        for line in run.lines {
            let metadata = line.metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            text += "\n    \(line.level) \(line.message)\(metadata)"
        }
        if run.droppedLines > 0 { text += "\n    (\(run.droppedLines) more lines not kept)" }
        return text
    }
}
