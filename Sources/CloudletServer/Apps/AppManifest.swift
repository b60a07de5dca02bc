import Cloudlet
import Foundation

/// What one app runs, as the server lists it at start and when the registry changes it: its hooks
/// with their time limits, and its limits.
///
/// ```text
/// app "dev": hooks in 2 worker processes of self (512 MiB each); hook time limits capped at 60 s
///   rate 40/s,burst=80, 1 rule, 32 concurrent hooks, 256 queued
///   beforeSave   Messages      2 s
///   function     authenticate  15 s
/// ```
public struct AppManifest: Sendable {
    /// The app.
    public var appId: String
    /// Its settings: where hooks run, the cap, the limits.
    public var settings: AppSettings
    /// The hooks, sorted by name then kind.
    public var hooks: [HookRegistry.Summary]

    public init(appId: String, settings: AppSettings, hooks: [HookRegistry.Summary]) {
        self.appId = appId
        self.settings = settings
        self.hooks = hooks.sorted { ($0.name, $0.kind.rawValue) < ($1.name, $1.kind.rawValue) }
    }

    /// Throws 142 naming the first hook whose time limit is over the app's cap.
    public func checkTimeLimits() throws {
        let cap = settings.maximumHookTimeLimit
        guard let hook = hooks.first(where: { $0.timeLimit > cap }) else { return }
        throw AppSettings.invalid(
            "app \"\(appId)\" refused: its \(hook.kind.rawValue) hook \(hook.name) has a time limit of \(hook.timeLimit), over the app's cap of \(cap) (maxHookTimeLimitMs)"
        )
    }

    /// Throws 142 naming the first of `jobs` (in name order) that no job hook of the app defines: a
    /// schedule for it would only ever fail.
    public func checkJobsExist(_ jobs: some Sequence<String>) throws {
        try Self.checkJobsExist(jobs, among: Set(hooks.filter { $0.kind == .job }.map(\.name)), appId: appId)
    }

    /// Throws 142 naming the first of `jobs` (in name order) not among the `defined` jobs of app `appId`.
    public static func checkJobsExist(_ jobs: some Sequence<String>, among defined: Set<String>, appId: String) throws {
        guard let missing = jobs.filter({ !defined.contains($0) }).sorted().first else { return }
        throw AppSettings.invalid("app \"\(appId)\" has no job \(missing): its hooks define no job of that name")
    }

    /// The manifest as text: ``settingsLines``, then one line per hook.
    public var text: String {
        var lines = settingsLines
        let nameWidth = hooks.map(\.name.count).max() ?? 0
        for hook in hooks {
            lines.append(
                "  \(hook.kind.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) "
                    + "\(hook.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \(hook.timeLimit)")
        }
        if hooks.isEmpty { lines.append("  no hooks") }
        return lines.joined(separator: "\n")
    }

    /// Two lines: where the hooks run and their cap, then the rate limits; and a third naming the
    /// job schedules, when the app has any.
    public var settingsLines: [String] {
        let placement =
            settings.isolation == .inProcess
            ? "hooks in the server's process"
            : "hooks in \(settings.workerCount) worker process\(settings.workerCount == 1 ? "" : "es") of \(settings.hooksExecutable) "
                + "(\(settings.workerMemoryMegabytes == 0 ? "no memory limit" : "\(settings.workerMemoryMegabytes) MiB each"))"
        let limits = settings.rateLimits
        let schedules = settings.jobSchedules.sorted { $0.key < $1.key }.map { "\($0.key) at \($0.value.expression)" }
        return [
            "app \"\(appId)\": \(placement); hook time limits capped at \(settings.maximumHookTimeLimit)",
            "  rate \(RateLimitPolicy.text(of: limits.quota)), \(limits.rules.count) rule\(limits.rules.count == 1 ? "" : "s"), "
                + "\(limits.maximumConcurrentHooks) concurrent hooks, \(limits.maximumQueuedHooks) queued",
        ] + (schedules.isEmpty ? [] : ["  jobs scheduled (UTC): " + schedules.joined(separator: ", ")])
    }
}
