import Cloudlet
import CloudletRuntime

extension ParseAPI {
    /// `GET /config` with any key: `{"params": {…}, "masterKeyOnly": {…}}`, the parameters set
    /// `masterKeyOnly` only with the master key (see ``GlobalConfig/visible(toMaster:)``).
    func readConfig(_ call: ParseCall) async throws -> Reply {
        Reply(body: try await call.app.runtime.config.read(caller: call.caller).json)
    }

    /// `PUT /config` with the master key: merges `{"params": {…}, "masterKeyOnly": {…}}` into the
    /// app's config (see ``GlobalConfigUpdate``) and answers `{"result": true}`.
    func updateConfig(_ call: ParseCall) async throws -> Reply {
        guard call.caller.isMaster else { throw ParseError.masterKeyRequired }
        try await call.app.runtime.config.update(try GlobalConfigUpdate(body: call.body), caller: call.caller)
        return Reply(body: ["result": true])
    }
}
