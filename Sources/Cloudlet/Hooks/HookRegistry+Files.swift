/// The registration methods of the file kinds, one hook each per app, as in Parse
/// (`Parse.Cloud.beforeSaveFile`): each adapts ``FileHookRequest`` to the registry's one ``HookRegistry/Call``.
extension HookRegistry {
    /// A `beforeSaveFile` handler: may change `request.file` (name, content type, metadata), or throw to refuse the upload.
    public typealias BeforeSaveFileHandler = @Sendable (inout FileHookRequest) async throws -> Void
    /// An `afterSaveFile`, `beforeDeleteFile` or `afterDeleteFile` handler.
    public typealias FileHandler = @Sendable (FileHookRequest) async throws -> Void

    /// Runs `handler` on each upload once its bytes are received and before they are served: it may
    /// rename the file, change its content type or metadata, or refuse it.
    public mutating func beforeSaveFile(
        timeLimit: Duration = HookKind.beforeSaveFile.defaultTimeLimit, _ handler: @escaping BeforeSaveFileHandler
    ) {
        register(.beforeSaveFile, "", timeLimit: timeLimit) { call in
            var request = FileHookRequest(file: HookFile(json: call.input), context: call.context)
            try await handler(&request)
            return request.file.json
        }
    }

    /// Runs `handler` after each upload is stored; its error never fails the upload.
    public mutating func afterSaveFile(timeLimit: Duration = HookKind.afterSaveFile.defaultTimeLimit, _ handler: @escaping FileHandler) {
        register(.afterSaveFile, "", timeLimit: timeLimit) { call in
            try await handler(FileHookRequest(file: HookFile(json: call.input), context: call.context))
            return .null
        }
    }

    /// Runs `handler` before each `DELETE /files/:name`; throwing stops the delete.
    public mutating func beforeDeleteFile(
        timeLimit: Duration = HookKind.beforeDeleteFile.defaultTimeLimit, _ handler: @escaping FileHandler
    ) {
        register(.beforeDeleteFile, "", timeLimit: timeLimit) { call in
            try await handler(FileHookRequest(file: HookFile(json: call.input), context: call.context))
            return .null
        }
    }

    /// Runs `handler` after each file is deleted; its error never fails the delete.
    public mutating func afterDeleteFile(timeLimit: Duration = HookKind.afterDeleteFile.defaultTimeLimit, _ handler: @escaping FileHandler) {
        register(.afterDeleteFile, "", timeLimit: timeLimit) { call in
            try await handler(FileHookRequest(file: HookFile(json: call.input), context: call.context))
            return .null
        }
    }
}
