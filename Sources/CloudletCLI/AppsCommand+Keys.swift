import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

extension AppsCommand {
    struct RotateKey: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "rotate-key",
                abstract: "Make a new client or master key and print it; the old one stays valid until retire-key.")
        }

        @Argument(help: "The app id.") var id: String
        @Argument(help: "client or master.") var kind: AppKeyKind
        @Flag(help: "Retire the old key at once (it stops being valid).") var retireOld = false
        @OptionGroup var options: DataOptions

        func run() async throws {
            try reportingErrors {
                let registry = try options.registry()
                let key = try registry.rotateKey(of: id, kind)
                if retireOld { try registry.retireKeys(of: id, kind) }
                print(key)
            }
        }
    }

    struct RetireKey: AsyncParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "retire-key", abstract: "Stop accepting the app's old (retiring) client or master key.")
        }

        @Argument(help: "The app id.") var id: String
        @Argument(help: "client or master.") var kind: AppKeyKind
        @OptionGroup var options: DataOptions

        func run() async throws {
            try reportingErrors {
                let retired = try options.registry().retireKeys(of: id, kind)
                print("retired \(retired) \(kind.rawValue) key\(retired == 1 ? "" : "s") of app \"\(id)\"")
            }
        }
    }
}

/// The app settings `cloudlet apps create|update` take; each, when given, replaces the setting.
struct AppSettingsOptions: ParsableArguments {
    @Option(help: "The hooks executable (built with CloudletCommand), or self for this binary's own hooks.") var hooks: String?
    @Option(help: "Where hooks run: process or in-process (self only).") var isolation: HookIsolation?
    @Option(help: "Worker processes of the app.") var workers: Int?
    @Option(help: "Memory limit of each worker in MiB, 0 for none.") var workerMemoryMb: Int?
    @Option(help: "The longest time limit a hook of the app may have, in milliseconds.") var maxHookTimeLimitMs: Int?
    @Option(help: "The app's request quota: 40/s,burst=80, 600/min or off.") var rateLimit: String?
    @Option(help: "The app's whole rate-limit policy as JSON: {\"rate\": …, \"rules\": […], …}.") var rateLimits: String?
    @Option(
        help: """
            The app's push providers as JSON: {"apns": {"keyFile", "keyId", "teamId", "topic", "environment"}, \
            "fcm": {"serviceAccountFile"}, "webhook": {"url"}, "log": true, "caFile"}; key files by absolute path.
            """) var push: String?
    @Option(help: "The largest file one upload may store, in bytes. Default 20971520 (20 MiB).") var maxUploadBytes: Int?
    @Option(help: "Whether uploads need a session (or the master key): true or false. Default false.") var filesNeedSession: Bool?
    @Option(help: "The most bytes the app's files may take together, or none. Default none (only the host's free-disk floor).")
    var maxTotalFileBytes: String?

    /// `settings` with the options given applied, checked as the admin API checks them.
    func applied(to settings: AppSettings) throws -> AppSettings {
        var members: [String: ParseValue] = [:]
        if let hooks {
            let path = hooks == AppSettings.selfExecutable ? hooks : URL(fileURLWithPath: hooks).standardizedFileURL.path
            members["hooks"] = .string(path)
        }
        if let isolation { members["isolation"] = .string(isolation.rawValue) }
        if let workers { members["workers"] = .number(Double(workers)) }
        if let workerMemoryMb { members["workerMemoryMb"] = .number(Double(workerMemoryMb)) }
        if let maxHookTimeLimitMs { members["maxHookTimeLimitMs"] = .number(Double(maxHookTimeLimitMs)) }
        if let rateLimits { members["rateLimits"] = try JSONParser.parse(rateLimits) }
        if let push { members["push"] = try JSONParser.parse(push) }
        var files: [String: ParseValue] = [:]
        if let maxUploadBytes { files["maxUploadBytes"] = .number(Double(maxUploadBytes)) }
        if let filesNeedSession { files["requireSession"] = .bool(filesNeedSession) }
        if let maxTotalFileBytes {
            // Anything but a count or `none` reaches the settings as text, which they refuse, naming the member.
            let count = Int64(maxTotalFileBytes).map { ParseValue.number(Double($0)) }
            files["maxTotalBytes"] = maxTotalFileBytes == "none" ? .null : count ?? .string(maxTotalFileBytes)
        }
        if !files.isEmpty { members["files"] = .object(files) }
        var result = try settings.applying(members)
        if let rateLimit { result.rateLimits.quota = try RateLimitPolicy.quota(text: rateLimit) }
        return result
    }
}
