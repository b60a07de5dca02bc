import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation

/// `cloudlet push …`: an app's push jobs, read and recorded straight in the app's database, as
/// `cloudlet logs` reads hook runs. A running server on a data folder sends a job recorded here
/// once it next looks at the app's database files (every 2 s by default); on PostgreSQL, the nodes
/// are woken at once.
struct PushCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "push", abstract: "Record push jobs and show how they went.", subcommands: [PushSendCommand.self, PushStatusCommand.self])
    }

    /// A job as one line: id, status, counts, times and error.
    static func line(_ job: ParseObject) -> String {
        let fields = job.fields
        func number(_ name: String) -> Int { fields[name]?.intValue ?? 0 }
        var line = "\(job.objectId ?? "") \(fields["status"]?.stringValue ?? "?") sent=\(number("numSent")) failed=\(number("numFailed")) count=\(number("count"))"
        if let createdAt = job.createdAt { line += " created=\(ParseDate.string(from: createdAt))" }
        if let pushTime = fields["pushTime"]?.stringValue { line += " pushTime=\(pushTime)" }
        if let error = fields["errorMessage"]?.stringValue { line += " error=\(JSONWriter.quoted(error))" }
        return line
    }

    /// A job as JSON: its fields with its id and timestamps.
    static func json(_ job: ParseObject) -> String {
        var members = job.fields
        members["objectId"] = job.objectId.map(ParseValue.string)
        members["createdAt"] = job.createdAt.map { .string(ParseDate.string(from: $0)) }
        members["updatedAt"] = job.updatedAt.map { .string(ParseDate.string(from: $0)) }
        return JSONWriter.string(.object(members))
    }
}
