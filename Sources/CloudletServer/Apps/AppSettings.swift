import Cloudlet
import CloudletIsolation
import CloudletRuntime
import Foundation

/// Where an app's hooks run.
public enum HookIsolation: String, Sendable, Hashable, CaseIterable {
    /// In worker processes, a pool per app: a hook that traps or hangs costs only its worker.
    case process
    /// As closures in the server's own process: fastest, but a trap ends the server. Only for the
    /// serving binary's own hooks.
    case inProcess = "in-process"
}

/// What the operator sets for one app in the registry: where its hooks run, how many workers they
/// get, the cap on its hooks' time limits, its rate limits, its push providers, its job schedules and
/// its file options. Every member has a default.
public struct AppSettings: Sendable, Hashable {
    /// ``hooksExecutable`` naming the serving binary itself (whose hooks are built in).
    public static let selfExecutable = "self"

    /// The executable whose hooks the app runs (built with `CloudletCommand`), or ``selfExecutable``.
    /// Default ``selfExecutable``.
    public var hooksExecutable: String
    /// Where the hooks run. Default ``HookIsolation/process``.
    public var isolation: HookIsolation
    /// Worker processes of the app (process isolation). Default 1.
    public var workerCount: Int
    /// Largest data segment of one worker in MiB, 0 for no limit. Default
    /// ``WorkerPoolConfiguration/defaultMemoryLimitMegabytes``.
    public var workerMemoryMegabytes: Int
    /// The longest time limit one of the app's hooks may declare; an app with a hook over it is
    /// refused. Default 60 s.
    public var maximumHookTimeLimit: Duration
    /// The app's rate limits. Default ``RateLimitPolicy/init(quota:rules:maximumConcurrentHooks:maximumQueuedHooks:)``
    /// (40 requests/s, burst 80).
    public var rateLimits: RateLimitPolicy
    /// Where the app's push notifications go. Default: the log provider for every device type.
    public var push: PushSettings
    /// The app's upload limit and whether uploads need a session. Default 20 MiB, no session needed.
    public var files: FileSettings
    /// When the app's jobs run by themselves, by job name. Default none.
    public var jobSchedules: [String: CronSchedule]

    public init(
        hooksExecutable: String = AppSettings.selfExecutable, isolation: HookIsolation = .process, workerCount: Int = 1,
        workerMemoryMegabytes: Int = WorkerPoolConfiguration.defaultMemoryLimitMegabytes, maximumHookTimeLimit: Duration = .seconds(60), rateLimits: RateLimitPolicy = RateLimitPolicy(),
        push: PushSettings = PushSettings(), jobSchedules: [String: CronSchedule] = [:], files: FileSettings = FileSettings()
    ) {
        self.hooksExecutable = hooksExecutable
        self.isolation = isolation
        self.workerCount = workerCount
        self.workerMemoryMegabytes = workerMemoryMegabytes
        self.maximumHookTimeLimit = maximumHookTimeLimit
        self.rateLimits = rateLimits
        self.push = push
        self.jobSchedules = jobSchedules
        self.files = files
    }

    /// The JSON members that name settings, as the admin API, `cloudlet apps` and the config file write them.
    public static let memberNames: Set<String> = [
        "hooks", "isolation", "workers", "workerMemoryMb", "maxHookTimeLimitMs", "rateLimits", "push", "jobSchedules", "files",
    ]

    /// These settings with the members of `json` that name settings applied; other members are
    /// left to the caller. Throws 142 naming the member when a value is out of bounds, when `hooks`
    /// names no executable file, or when a file that `push` names cannot be read or holds no usable key.
    public func applying(_ json: [String: ParseValue]) throws -> AppSettings {
        var settings = self
        if let hooks = json["hooks"] {
            guard let path = hooks.stringValue, !path.isEmpty, path.utf8.count <= 1024 else {
                throw Self.invalid("hooks must be \"self\" or the path of an executable")
            }
            if path != Self.selfExecutable, let problem = Self.executableProblem(path) { throw Self.invalid("hooks: \(problem)") }
            settings.hooksExecutable = path
        }
        if let isolation = json["isolation"] {
            guard let mode = isolation.stringValue.flatMap(HookIsolation.init(rawValue:)) else {
                throw Self.invalid("isolation must be process or in-process")
            }
            settings.isolation = mode
        }
        settings.workerCount = try Self.integer(json, "workers", in: 1...64) ?? settings.workerCount
        settings.workerMemoryMegabytes = try Self.integer(json, "workerMemoryMb", in: 0...65_536) ?? settings.workerMemoryMegabytes
        if let cap = try Self.integer(json, "maxHookTimeLimitMs", in: 1...3_600_000) {
            settings.maximumHookTimeLimit = .milliseconds(cap)
        }
        if let policy = json["rateLimits"] {
            do {
                settings.rateLimits = try RateLimitPolicy(json: policy)
            } catch let error as ParseError {
                throw Self.invalid(error.message)
            }
        }
        if let push = json["push"] {
            settings.push = try PushSettings(json: push)
            try settings.push.validate()
        }
        if let schedules = json["jobSchedules"] {
            settings.jobSchedules = try Self.jobSchedules(schedules)
        }
        if let files = json["files"] { settings.files = try settings.files.applying(files) }
        return settings
    }

    /// The settings as JSON, in the members ``applying(_:)`` reads.
    public var json: [String: ParseValue] {
        [
            "hooks": .string(hooksExecutable), "isolation": .string(isolation.rawValue),
            "workers": .number(Double(workerCount)), "workerMemoryMb": .number(Double(workerMemoryMegabytes)),
            "maxHookTimeLimitMs": .number(Double(maximumHookTimeLimit.wholeMilliseconds)), "rateLimits": rateLimits.json,
            "push": push.json, "jobSchedules": Self.jobSchedulesJSON(jobSchedules), "files": files.json,
        ]
    }

    /// Whether the app's executor (and worker pool) must be rebuilt to go from these settings to `other`.
    func needsNewExecutor(for other: AppSettings) -> Bool {
        hooksExecutable != other.hooksExecutable || isolation != other.isolation || workerCount != other.workerCount
            || workerMemoryMegabytes != other.workerMemoryMegabytes
    }

    /// Why `path` cannot be run as an app's hooks executable (not absolute, missing, a folder, or
    /// not executable), or nil if it can.
    static func executableProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "\(path) is not an absolute path" }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "\(path) does not exist" }
        guard !isFolder.boolValue, FileManager.default.isExecutableFile(atPath: path) else { return "\(path) is not an executable file" }
        return nil
    }

    /// The most schedules one app may have.
    public static let maximumJobSchedules = 100

    /// Schedules as JSON: `{"cleanup": "0 3 * * *"}`.
    static func jobSchedulesJSON(_ schedules: [String: CronSchedule]) -> ParseValue {
        .object(schedules.mapValues { .string($0.expression) })
    }

    /// Reads `{"<job>": "<cron expression>", …}`, refusing a bad job name or expression (142).
    static func jobSchedules(_ json: ParseValue) throws -> [String: CronSchedule] {
        guard let members = json.objectValue, members.count <= maximumJobSchedules else {
            throw invalid("jobSchedules must be an object of at most \(maximumJobSchedules) job names and cron expressions")
        }
        var schedules: [String: CronSchedule] = [:]
        for (job, expression) in members {
            try checkJobName(job)
            guard let text = expression.stringValue else { throw invalid("jobSchedules.\(job) must be a cron expression string") }
            do {
                schedules[job] = try CronSchedule(text)
            } catch {
                throw invalid("jobSchedules.\(job): \(error)")
            }
        }
        return schedules
    }

    /// Throws 142 unless `name` could name a job: 1 to 128 letters, digits, `_` or `-`.
    static func checkJobName(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { $0 == 0x5F || $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        guard !name.isEmpty, name.utf8.count <= 128, allowed else {
            throw invalid("\"\(name)\" is not a job name: use 1 to 128 letters, digits, _ and -")
        }
    }

    private static func integer(_ json: [String: ParseValue], _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = json[name] else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            throw invalid("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    static func invalid(_ message: String) -> ParseError {
        ParseError(code: 142, message: message, httpStatus: 400)
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
