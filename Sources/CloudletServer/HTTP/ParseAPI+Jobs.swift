import Cloudlet
import CloudletRuntime
import HTTPTypes

extension ParseAPI {
    /// The header `POST /jobs/:name` answers the run's `_JobStatus` id in, as Parse Server does.
    static let jobStatusIdHeader = HTTPField.Name("X-Parse-Job-Status-Id")!

    /// `POST /jobs/:name` with the master key: records a run of the job in `_JobStatus` (source
    /// `api`, the body as its `params`), starts it in the background and answers at once with
    /// `{"jobStatusId": id}` and the id in `X-Parse-Job-Status-Id`.
    func startJob(_ call: ParseCall) async throws -> Reply {
        guard call.caller.isMaster else {
            throw ParseError.masterKeyRequired
        }
        let id = try await call.app.runtime.jobs.start(try call.parameter("name"), params: call.body, source: .api, caller: call.caller)
        return Reply(body: ["jobStatusId": .string(id)], headers: [Self.jobStatusIdHeader: id])
    }
}
