import Cloudlet
import Foundation

/// One run of a background job, as Parse Server keeps it in `_JobStatus`: `jobName`, `source`
/// (`api` or `schedule`), `status` (`running`, `succeeded`, `failed`), `message` (the latest progress
/// message the job reported, or why it failed), `params`, and `finishedAt` once it ended. The ACL is
/// empty: only the master key reads runs, and only the server writes them.
public enum JobStatus {
    /// The class runs are stored in.
    public static let className = "_JobStatus"
    /// How many runs an app keeps: past these, the oldest ended runs are deleted as runs end.
    public static let retention = 1_000
    /// How many times a run is started before it is given up as failed: a run is started again when
    /// its server stopped while it ran, which a run that brings its server down would do for ever.
    public static let maximumAttempts = 5
    /// The longest progress or failure message kept; longer ones are cut.
    public static let maximumMessageLength = 1_024

    /// Where a run is.
    public enum State: String, Sendable, CaseIterable {
        case running
        case succeeded
        case failed
    }

    /// What started a run.
    public enum Source: String, Sendable, CaseIterable {
        /// `POST /jobs/:name` (or `cloudlet jobs run`, which calls it).
        case api
        /// The app's schedule for the job.
        case schedule
    }


    /// A new running run of `jobName` with `params`, stored as `id` at `now`.
    package static func running(id: String, jobName: String, source: Source, params: [String: ParseValue], at now: Date) -> ParseObject {
        ParseObject(
            className: className, objectId: id, createdAt: now, updatedAt: now, acl: ParseACL(),
            fields: [
                "jobName": .string(jobName), "source": .string(source.rawValue), "status": .string(State.running.rawValue),
                "params": .object(params),
            ])
    }

    /// The fields that end a run in `state` at `now`, with `message` (cut to ``maximumMessageLength``).
    package static func ended(_ state: State, message: String?, at now: Date) -> [String: ParseValue] {
        var fields: [String: ParseValue] = ["status": .string(state.rawValue), "finishedAt": date(now)]
        if let message { fields["message"] = .string(cut(message)) }
        return fields
    }

    /// `message`, at most ``maximumMessageLength`` characters.
    package static func cut(_ message: String) -> String {
        message.count <= maximumMessageLength ? message : String(message.prefix(maximumMessageLength))
    }

    /// A Parse `Date` value.
    package static func date(_ date: Date) -> ParseValue {
        ["__type": "Date", "iso": .string(ParseDate.string(from: date))]
    }
}
