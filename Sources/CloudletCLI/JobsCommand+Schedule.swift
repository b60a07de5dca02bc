import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet jobs schedule <app> <job> '<cron>'`: sets when the job runs by itself, in the registry
/// (a running server applies it within half a second; on PostgreSQL, every node). A job the app's
/// hooks do not define is refused.
struct JobsScheduleCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "schedule",
            abstract: "Run a job on a schedule: a 5-field cron expression in UTC (minute hour day-of-month month day-of-week).")
    }

    @OptionGroup var options: AppDataOptions
    @Argument(help: "The job's name.") var job: String
    @Argument(help: "When it runs, such as '0 3 * * *' (03:00 UTC daily) or '*/15 * * * *'.") var cron: String

    func run() async throws {
        try await reportingErrors {
            guard let app = try await options.withRegistry({ try await $0.app(options.app) }) else {
                throw ParseError(code: 101, message: "no app \(options.app)", httpStatus: 404)
            }
            try AppManifest.checkJobsExist([job], among: try Self.jobs(of: app), appId: options.app)
            let (job, cron) = (job, cron)
            let record = try await options.withRegistry { registry in
                try await registry.update(options.app) { settings in
                    var schedules = settings.jobSchedules.mapValues { ParseValue.string($0.expression) }
                    schedules[job] = .string(cron)
                    settings = try settings.applying(["jobSchedules": .object(schedules)])
                }
            }
            let schedule = record.settings.jobSchedules[job]?.expression ?? cron
            print(options.json ? JSONWriter.string(record.json) : "job \(job) of app \"\(options.app)\" runs at \(schedule) (UTC)")
        }
    }
}

extension JobsScheduleCommand {
    /// The names of the jobs app `record` has: this binary's own for hooks `self`, else those its
    /// executable's `hooks list` prints.
    static func jobs(of record: AppRecord) throws -> Set<String> {
        let executable = record.settings.hooksExecutable
        guard executable != AppSettings.selfExecutable else {
            return Set(Hooks.registry().summary.filter { $0.kind == .job }.map(\.name))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["hooks", "list"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw ParseError(code: 142, message: "cannot list the jobs of app \"\(record.id)\": \(executable) does not run", httpStatus: 400)
        }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ParseError(code: 142, message: "cannot list the jobs of app \"\(record.id)\": `\(executable) hooks list` failed", httpStatus: 400)
        }
        // One hook a line: its kind padded to a column, its name, its time limit.
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ") }
        return Set(lines.compactMap { $0.count > 1 && $0[0] == HookKind.job.rawValue[...] ? String($0[1]) : nil })
    }
}

/// `cloudlet jobs unschedule <app> <job>`: the job no longer runs by itself.
struct JobsUnscheduleCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "unschedule", abstract: "Stop running a job on a schedule.")
    }

    @OptionGroup var options: AppDataOptions
    @Argument(help: "The job's name.") var job: String

    func run() async throws {
        try await reportingErrors {
            let record = try await options.withRegistry { registry in
                try await registry.update(options.app) { settings in
                    guard settings.jobSchedules.removeValue(forKey: job) != nil else {
                        throw ParseError(code: 142, message: "job \(job) of app \"\(options.app)\" has no schedule", httpStatus: 400)
                    }
                }
            }
            print(options.json ? JSONWriter.string(record.json) : "job \(job) of app \"\(options.app)\" no longer runs on a schedule")
        }
    }
}
