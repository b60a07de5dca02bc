import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet jobs list <app>`: one line per job (those the app's schedules name, those that have
/// run, and the serving binary's own for an app whose hooks are `self`): its schedule, its last
/// run and its next one.
struct JobsListCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "list", abstract: "List the app's jobs: schedule, last run, next run.")
    }

    @OptionGroup var options: AppDataOptions

    func run() async throws {
        guard let record = try await options.withRegistry({ try await $0.app(options.app) }) else {
            throw ValidationError("no app \(options.app)")
        }
        try await options.withStorage { storage in try await list(record, stores: storage?.stores) }
    }

    /// Prints the jobs of `record`'s app, their runs read from `stores` (nil: the app never ran).
    private func list(_ record: AppRecord, stores: AppStores?) async throws {
        let states = try await stores?.jobs.jobScheduleStates() ?? [:]
        let objects = stores?.objects
        var names = Set(record.settings.jobSchedules.keys)
        if record.settings.hooksExecutable == AppSettings.selfExecutable { names.formUnion(Hooks.registry().summary.filter { $0.kind == .job }.map(\.name)) }
        if let objects {
            for run in try await JobRuns.newestRuns(objects, limit: JobStatus.retention) {
                if let name = run.fields["jobName"]?.stringValue { names.insert(name) }
            }
        }
        if names.isEmpty, !options.json { print("no jobs") }
        let now = Date()
        for name in names.sorted() {
            let schedule = record.settings.jobSchedules[name]
            var lastRun: ParseObject?
            if let objects { lastRun = try await JobRuns.newestRuns(objects, job: name, limit: 1).first }
            var next: Date?
            if let schedule {
                // A time missed while no server ran is run once when one starts.
                let state = states[name].flatMap { $0.expression == schedule.expression ? $0 : nil }
                next = schedule.next(after: state?.handledThrough ?? now).map { max($0, now) }
            }
            if options.json {
                var members: [String: ParseValue] = ["job": .string(name)]
                members["schedule"] = schedule.map { .string($0.expression) }
                members["nextRunAt"] = next.map { .string(ParseDate.string(from: $0)) }
                members["skippedRuns"] = states[name].map { .number(Double($0.skippedRuns)) }
                members["lastRun"] = lastRun.map { (try? JSONParser.parse(JobRuns.json($0))) ?? .null }
                print(JSONWriter.string(.object(members)))
                continue
            }
            var line = "\(name)\t\(schedule?.expression ?? "not scheduled")"
            line += "\tnext=\(next.map(ParseDate.string(from:)) ?? "-")"
            if let lastRun {
                let status = lastRun.fields["status"]?.stringValue ?? "?"
                line += "\tlast=\(lastRun.createdAt.map(ParseDate.string(from:)) ?? "?") \(status) \(lastRun.objectId ?? "")"
            } else {
                line += "\tlast=-"
            }
            if let skipped = states[name]?.skippedRuns, skipped > 0 { line += "\tskipped=\(skipped)" }
            print(line)
        }
        if record.settings.hooksExecutable != AppSettings.selfExecutable, !options.json {
            print("(jobs that never ran nor are scheduled: see `\(record.settings.hooksExecutable) hooks list`)")
        }
    }
}
