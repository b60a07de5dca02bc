import ArgumentParser
import Cloudlet
import CloudletServer

/// `cloudlet jobs schedule <app> <job> '<cron>'`: sets when the job runs by itself, in the registry
/// (a running server applies it within half a second).
struct JobsScheduleCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "schedule",
            abstract: "Run a job on a schedule: a 5-field cron expression in UTC (minute hour day-of-month month day-of-week).")
    }

    @OptionGroup var options: JobsAppOptions
    @Argument(help: "The job's name.") var job: String
    @Argument(help: "When it runs, such as '0 3 * * *' (03:00 UTC daily) or '*/15 * * * *'.") var cron: String

    func run() async throws {
        try reportingErrors {
            let record = try options.registry().update(options.app) { settings in
                var schedules = settings.jobSchedules.mapValues { ParseValue.string($0.expression) }
                schedules[job] = .string(cron)
                settings = try settings.applying(["jobSchedules": .object(schedules)])
            }
            let schedule = record.settings.jobSchedules[job]?.expression ?? cron
            print(options.json ? JSONWriter.string(record.json) : "job \(job) of app \"\(options.app)\" runs at \(schedule) (UTC)")
        }
    }
}

/// `cloudlet jobs unschedule <app> <job>`: the job no longer runs by itself.
struct JobsUnscheduleCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "unschedule", abstract: "Stop running a job on a schedule.")
    }

    @OptionGroup var options: JobsAppOptions
    @Argument(help: "The job's name.") var job: String

    func run() async throws {
        try reportingErrors {
            let record = try options.registry().update(options.app) { settings in
                guard settings.jobSchedules.removeValue(forKey: job) != nil else {
                    throw ParseError(code: 142, message: "job \(job) of app \"\(options.app)\" has no schedule", httpStatus: 400)
                }
            }
            print(options.json ? JSONWriter.string(record.json) : "job \(job) of app \"\(options.app)\" no longer runs on a schedule")
        }
    }
}
