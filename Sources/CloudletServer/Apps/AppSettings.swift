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
/// get, the cap on its hooks' time limits, its rate limits, its push providers, its job schedules,
/// its file options, its emails and the classes it publishes to LiveQuery. Each member's default
/// is written here once; ``fields`` names each setting as the settings document, the admin API,
/// the config file and the command line write it.
///
/// Adding a setting is its member here and its entry in ``fields``: the registry keeps it in the
/// settings document (an app stored before it existed reads its default), and `cloudlet apps
/// create|update`, the admin API and the config file's `apps` take it by its name.
public struct AppSettings: Sendable, Hashable {
    /// ``hooksExecutable`` naming the serving binary itself (whose hooks are built in).
    public static let selfExecutable = "self"

    /// The executable whose hooks the app runs (built with `CloudletCommand`), or ``selfExecutable``.
    public var hooksExecutable = AppSettings.selfExecutable
    /// Where the hooks run.
    public var isolation = HookIsolation.process
    /// Worker processes of the app (process isolation).
    public var workerCount = 1
    /// Largest data segment of one worker in MiB, 0 for no limit.
    public var workerMemoryMegabytes = WorkerPoolConfiguration.defaultMemoryLimitMegabytes
    /// The longest time limit one of the app's hooks may declare; an app with a hook over it is refused.
    public var maximumHookTimeLimit = Duration.seconds(60)
    /// The app's rate limits (40 requests/s, burst 80, by default).
    public var rateLimits = RateLimitPolicy()
    /// Where the app's push notifications go: the log provider for every device type, by default.
    public var push = PushSettings()
    /// The app's upload limit and whether uploads need a session: 20 MiB, no session needed, by default.
    public var files = FileSettings()
    /// When the app's jobs run by themselves, by job name. None by default.
    public var jobSchedules: [String: CronSchedule] = [:]
    /// How long a new session lasts, in seconds (Parse Server's `sessionLength`): one year by default.
    public var sessionLength = 365 * 86_400
    /// The app's email links and where its emails go: to its log, no verification required, by default.
    public var email = EmailSettings()
    /// Which `authData` providers the app accepts: anonymous users, and Apple and Google once their
    /// audiences are named. By default anonymous users only.
    public var authProviders = AuthProviderSettings()
    /// Whether clients (not the master key) may create classes by saving to them (Parse Server's
    /// `allowClientClassCreation`): allowed by default.
    public var allowClientClassCreation = true
    /// The classes whose committed writes are published to LiveQuery (Parse Server's `liveQuery`
    /// option): none by default.
    public var liveQuery = LiveQuerySettings()

    /// The default settings.
    public init() {}

    /// The settings, one entry per member of the settings document.
    public static let fields: [AppSettingField] = [
        AppSettingField(
            "hooks", kind: .text, help: "The hooks executable (built with CloudletCommand), or self for this binary's own hooks.",
            read: { settings, value in
                guard let path = value.stringValue, !path.isEmpty, path.utf8.count <= 1024 else {
                    throw invalid("hooks must be \"self\" or the path of an executable")
                }
                settings.hooksExecutable = path
            }, write: { .string($0.hooksExecutable) }),
        .choice("isolation", \.isolation, help: "Where hooks run: process, or in-process (self only)."),
        .integer("workers", \.workerCount, in: 1...64, help: "Worker processes of the app."),
        .integer("workerMemoryMb", \.workerMemoryMegabytes, in: 0...65_536, help: "Memory limit of each worker in MiB, 0 for none."),
        .milliseconds(
            "maxHookTimeLimitMs", \.maximumHookTimeLimit, in: 1...3_600_000, help: "The longest time limit a hook of the app may have, in milliseconds."),
        .document(
            "rateLimits", help: "The app's whole rate-limit policy as JSON: {\"rate\": …, \"rules\": […], …}.",
            read: { settings, value in
                do {
                    settings.rateLimits = try RateLimitPolicy(json: value)
                } catch let error as ParseError {
                    throw invalid(error.message)
                }
            }, write: { $0.rateLimits.json }),
        .document(
            "push",
            help: """
                The app's push providers as JSON: {"apns": {"keyFile", "keyId", "teamId", "topic", "environment"}, \
                "fcm": {"serviceAccountFile"}, "webhook": {"url"}, "log": true, "caFile"}; key files by absolute path.
                """,
            read: { settings, value in settings.push = try PushSettings(json: value) }, write: { $0.push.json }),
        .document(
            "jobSchedules", help: "When the app's jobs run by themselves, as JSON: {\"<job>\": \"<cron expression>\"}.",
            read: { settings, value in settings.jobSchedules = try jobSchedules(value) }, write: { jobSchedulesJSON($0.jobSchedules) }),
        .integer(
            "sessionLength", \.sessionLength, in: 1...(100 * 365 * 86_400),
            help: "How long a new session lasts, in seconds; an older session is refused (209) once it has expired."),
        .bool(
            "anonymousUsers", \.authProviders.anonymousUsers,
            help: "Whether clients may sign up and log in as anonymous users (authData.anonymous): true or false."),
        .names(
            "appleBundleIds", \.authProviders.appleBundleIds,
            help: "The bundle ids (and Services ids) Sign in with Apple tokens must be issued to; none refuses Apple logins."),
        .names(
            "googleClientIds", \.authProviders.googleClientIds,
            help: "The OAuth client ids Google ID tokens must be issued to; none refuses Google logins."),
        .document(
            "email",
            help: """
                The app's emails as JSON: {"verifyUserEmails", "preventLoginWithUnverifiedEmail", "appName", "from", \
                "verificationLinkSeconds", "resetLinkSeconds", "smtp": {"host", "port", "security", "username", "passwordFile", \
                "caFile"}, "webhook": {"url"}}; files by absolute path.
                """,
            read: { settings, value in settings.email = try EmailSettings(json: value) }, write: { $0.email.json }),
        .bool(
            "allowClientClassCreation", \.allowClientClassCreation,
            help: "Whether clients may create classes by saving to them; when false, only the master key creates classes (/schemas)."),
        .document(
            "files", help: "The app's file options as JSON: {\"maxUploadBytes\", \"requireSession\", \"maxTotalBytes\"}.",
            read: { settings, value in settings.files = try settings.files.applying(value) }, write: { $0.files.json }),
        .document(
            "liveQuery", help: "The classes whose writes LiveQuery publishes, as JSON: {\"classNames\": [\"<class>\", …]}.",
            read: { settings, value in settings.liveQuery = try settings.liveQuery.applying(value) }, write: { $0.liveQuery.json }),
    ]

    /// Flags of `cloudlet apps create|update` (and `serve`) that set one part of a document member.
    public static let shortcuts: [AppSettingField] = [
        AppSettingField(
            "rateLimits.rate", flag: "rate-limit", kind: .text, help: "The app's request quota: 40/s,burst=80, 600/min or off.",
            read: { settings, value in
                do {
                    settings.rateLimits.quota = try RateLimitPolicy.quota(text: value.stringValue ?? "")
                } catch let error as ParseError {
                    throw invalid(error.message)
                }
            }, write: { .string(RateLimitPolicy.text(of: $0.rateLimits.quota)) }),
        filesShortcut("maxUploadBytes", flag: "max-upload-bytes", kind: .integer(1...FileSettings.largestMaximumUploadBytes), help: "The largest file one upload may store, in bytes."),
        filesShortcut("requireSession", flag: "files-need-session", kind: .bool, help: "Whether uploads need a session (or the master key): true or false."),
        filesShortcut(
            "maxTotalBytes", flag: "max-total-file-bytes", kind: .text,
            help: "The most bytes the app's files may take together, or none for no bound but the host's free-disk floor."),
        AppSettingField(
            "liveQuery.classNames", flag: "live-query-classes", kind: .text,
            help: "The classes whose writes LiveQuery publishes, separated by commas; empty for none.",
            read: { settings, value in settings.liveQuery.classNames = try LiveQuerySettings.classNames(value) },
            write: { .string($0.liveQuery.classNames.joined(separator: ",")) }),
    ]

    /// A flag for the member `files.<member>`; `none` (for `maxTotalBytes`) writes null, and a number
    /// given as text is that number.
    private static func filesShortcut(_ member: String, flag: String, kind: AppSettingField.Kind, help: String) -> AppSettingField {
        AppSettingField(
            "files.\(member)", flag: flag, kind: kind, help: help,
            read: { settings, value in
                let number = value.stringValue.flatMap(Int64.init).map { ParseValue.number(Double($0)) }
                settings.files = try settings.files.applying(.object([member: value.stringValue == "none" ? .null : number ?? value]))
            }, write: { $0.files.json.objectValue?[member] ?? .string("none") })
    }

    /// The JSON members that name settings, as the admin API, `cloudlet apps` and the config file write them.
    public static var memberNames: Set<String> { Set(fields.map(\.member)) }

    /// These settings with the members of `json` that name settings applied; other members are
    /// left to the caller. Throws 142 naming the member when a value is out of bounds, when `hooks`
    /// names no executable file, or when a file that `push` names cannot be read or holds no usable key.
    public func applying(_ json: [String: ParseValue]) throws -> AppSettings {
        let settings = try reading(json)
        if json["hooks"] != nil, settings.hooksExecutable != Self.selfExecutable, let problem = Self.executableProblem(settings.hooksExecutable) {
            throw Self.invalid("hooks: \(problem)")
        }
        if json["push"] != nil { try settings.push.validate() }
        if json["email"] != nil { try settings.email.validate() }
        return settings
    }

    /// These settings with the members of `json` read, checking their form but not the files they name
    /// (the registry reads what it stored even when an executable has since gone).
    func reading(_ json: [String: ParseValue]) throws -> AppSettings {
        var settings = self
        for field in Self.fields {
            if let value = json[field.member] { try field.read(&settings, value) }
        }
        return settings
    }

    /// The settings document: every member of ``fields``, in the form ``applying(_:)`` reads.
    public var json: [String: ParseValue] {
        Dictionary(uniqueKeysWithValues: Self.fields.map { ($0.member, $0.write(self)) })
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

    static func invalid(_ message: String) -> ParseError {
        ParseError(code: 142, message: message, httpStatus: 400)
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
