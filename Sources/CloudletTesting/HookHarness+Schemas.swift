import Cloudlet
import CloudletRuntime

extension HookHarness {
    /// Sets the schema of `className` as `POST` (for a new class) or `PUT /schemas/:className` does
    /// with the master key — `["fields": …, "classLevelPermissions": …, "indexes": …]` — and answers
    /// it. Harness calls and hooks' store calls as a client then meet the class's CLPs, as on the server:
    ///
    /// ```swift
    /// try await harness.setSchema("Posts", ["classLevelPermissions": ["find": ["requiresAuthentication": true]]])
    /// ```
    @discardableResult
    public func setSchema(_ className: String, _ body: [String: ParseValue]) async throws -> ParseValue {
        let master = try await caller(.master)
        do {
            return try await runtime.schemas.update(className, body: body, caller: master)
        } catch let error as ParseError where error.code == 103 && error.message.hasSuffix("does not exist.") {
            return try await runtime.schemas.create(className, body: body, caller: master)
        }
    }
}
