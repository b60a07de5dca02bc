import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Logging

/// `cloudlet push send <app> --channels a,b | --where '{…}' --payload '{…}' [--at ISO]`: records a
/// push job as `POST /push` does, as the master key, and prints its id.
struct PushSendCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "send", abstract: "Record a push job to channels or to the installations a query matches.")
    }

    @OptionGroup var options: AppDataOptions
    @Option(help: "Installations subscribed to any of these channels, comma-separated.") var channels: String?
    @Option(name: .customLong("where"), help: "Installations matching this Parse query on _Installation, as JSON.") var query: String?
    @Option(help: "The push's data (Parse's data) as JSON: alert, badge (a number or \"Increment\"), sound, title, and the app's own keys.")
    var payload: String
    @Option(help: "When to send it, as 2026-01-31T12:00:00.000Z. Default: now.") var at: String?

    func validate() throws {
        guard (channels == nil) != (query == nil) else { throw ValidationError("give either --channels or --where") }
        if let at, ParseDate.date(from: at) == nil { throw ValidationError("--at must be a date such as 2026-01-31T12:00:00.000Z") }
    }

    func run() async throws {
        guard let payload = try? JSONParser.parse(payload).objectValue else { throw ValidationError("--payload must be a JSON object") }
        let audience: [String: ParseValue]
        if let channels {
            let names = channels.split(separator: ",").map { ParseValue.string(String($0)) }
            audience = ["channels": ["$in": .array(names)]]
        } else {
            guard let constraints = try? JSONParser.parse(query ?? "").objectValue else { throw ValidationError("--where must be a JSON object") }
            audience = constraints
        }
        let pushTime = at.flatMap(ParseDate.date(from:))
        let job = PushJob(
            id: "", status: (pushTime ?? .distantPast) > Date() ? .scheduled : .pending, source: "rest", query: audience, data: payload,
            pushTime: pushTime)
        var body = job.fields
        body["ACL"] = [:]
        let id = try await options.withExistingStorage { storage in
            let runtime = AppRuntime(
                appId: options.app, stores: storage.stores, executor: InProcessHookExecutor(registry: HookRegistry()), clock: SystemClock(),
                logger: Logger(label: "cloudlet"), hookLogger: Logger(label: "cloudlet.hooks"))
            let saved = try await runtime.writes.create("_PushStatus", body: body, caller: Caller(isMaster: true, requestId: UUID().uuidString))
            return saved.object.objectId ?? ""
        }
        print(options.json ? JSONWriter.string(["objectId": .string(id)]) : "recorded push job \(id)")
    }
}
