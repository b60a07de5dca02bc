import Cloudlet
import Foundation

/// Hooks for the integration tests, served by `cloudlet-fixture serve`.
///
/// - `afterSave("Crash")`: with `CLOUDLET_FIXTURE_HANG_MARKER` set, writes that file (holding the
///   event id) once the save is committed, then hangs for a minute so that the test can kill the
///   process mid-hook. Without it, records the save as a `CrashLog` object (`savedId`, `eventId`).
/// - `function("slow")`: sleeps `ms` milliseconds, then answers "done".
enum FixtureHooks: HookModule {
    static let hangMarkerVariable = "CLOUDLET_FIXTURE_HANG_MARKER"

    static func register(_ hooks: inout HookRegistry) {
        hooks.afterSave("Crash", timeLimit: .seconds(60)) { request in
            if let marker = ProcessInfo.processInfo.environment[hangMarkerVariable], !marker.isEmpty {
                try Data((request.eventId ?? "").utf8).write(to: URL(fileURLWithPath: marker), options: .atomic)
                try await Task.sleep(for: .seconds(60))
                return
            }
            let log = ParseObject(
                className: "CrashLog",
                fields: [
                    "savedId": request.object.objectId.map(ParseValue.string) ?? .null,
                    "eventId": request.eventId.map(ParseValue.string) ?? .null,
                ])
            _ = try await request.store.asMaster.save(log)
        }
        hooks.function("slow") { request in
            let milliseconds = request.params["ms"]?.intValue ?? 0
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "done"
        }
    }
}
