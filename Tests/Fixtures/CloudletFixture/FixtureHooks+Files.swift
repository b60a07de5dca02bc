import Cloudlet

/// File hooks, to see them run in a worker process:
///
/// - `beforeSaveFile`: refuses a name containing `virus` (142); otherwise prefixes the name with
///   `checked-`, serves `.md` files as `text/markdown`, and records `checkedBy: fixture` and the
///   size it saw in the metadata.
/// - `afterSaveFile`, `afterDeleteFile`: record a `FileLog` (`event` `saved` or `deleted`, `name`).
/// - `beforeDeleteFile`: refuses to delete a file whose metadata has `keep: true` (142).
extension FixtureHooks {
    static func registerFiles(_ hooks: inout HookRegistry) {
        hooks.beforeSaveFile { request in
            guard !request.file.name.contains("virus") else { throw HookError.validation("no viruses") }
            request.file.name = "checked-" + request.file.name
            if request.file.name.hasSuffix(".md") { request.file.contentType = "text/markdown" }
            request.file.metadata["checkedBy"] = "fixture"
            request.file.metadata["sizeSeen"] = .number(Double(request.file.size))
        }
        hooks.afterSaveFile { request in
            _ = try await request.store.asMaster.save(ParseObject(className: "FileLog", fields: ["event": "saved", "name": .string(request.file.name)]))
        }
        hooks.beforeDeleteFile { request in
            if request.file.metadata["keep"] == true { throw HookError.validation("this file is kept") }
        }
        hooks.afterDeleteFile { request in
            _ = try await request.store.asMaster.save(ParseObject(className: "FileLog", fields: ["event": "deleted", "name": .string(request.file.name)]))
        }
    }
}
