import Cloudlet
import CloudletRuntime

extension HookHarness {
    /// Merges `params` into the app's config as `PUT /config` does (values may be field
    /// operations such as `{"__op": "Delete"}`), flagging those named in `masterKeyOnly`; hooks read
    /// it with `request.config()`.
    ///
    /// ```swift
    /// try await harness.updateConfig(["maxPostLength": 140, "apiSecret": "s3cr3t"], masterKeyOnly: ["apiSecret": true])
    /// ```
    public func updateConfig(_ params: [String: ParseValue], masterKeyOnly: [String: Bool] = [:]) async throws {
        let update = try GlobalConfigUpdate(body: ["params": .object(params), "masterKeyOnly": .object(masterKeyOnly.mapValues(ParseValue.bool))])
        try await runtime.config.update(update, caller: caller(.master))
    }

    /// The app's config parameters as `actor` reads them with `GET /config`.
    public func config(as actor: Actor = .master) async throws -> [String: ParseValue] {
        try await runtime.config.read(caller: caller(actor)).params
    }
}
