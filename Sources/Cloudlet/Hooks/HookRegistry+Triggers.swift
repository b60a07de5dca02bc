/// The registration methods of the save, delete and function kinds: each adapts its request type
/// to the registry's one ``HookRegistry/Call``.
extension HookRegistry {
    /// A `beforeSave` handler: may change `request.object`, or throw to reject the save.
    public typealias BeforeSaveHandler = @Sendable (inout BeforeSaveRequest) async throws -> Void
    /// An `afterSave` handler: runs once the save is committed; its error never fails the save.
    public typealias AfterSaveHandler = @Sendable (AfterSaveRequest) async throws -> Void
    /// A `beforeDelete` or `afterDelete` handler.
    public typealias DeleteHandler = @Sendable (DeleteRequest) async throws -> Void
    /// A function handler: its result is the `result` of `POST /functions/:name`.
    public typealias FunctionHandler = @Sendable (FunctionRequest) async throws -> ParseValue

    /// Runs `handler` before each save of an object of `className`.
    public mutating func beforeSave(
        _ className: String, timeLimit: Duration = HookKind.beforeSave.defaultTimeLimit, _ handler: @escaping BeforeSaveHandler
    ) {
        register(.beforeSave, className, timeLimit: timeLimit) { call in
            let given = call.object(of: className)
            var request = BeforeSaveRequest(object: given, original: call.original(of: className), context: call.context)
            try await handler(&request)
            return ObjectPatch(from: given, to: request.object).answer
        }
    }

    /// Runs `handler` after each committed save of an object of `className`, at least once: before
    /// the response is sent, or after it with `runs: .afterResponse` (the client does not wait).
    public mutating func afterSave(
        _ className: String, timeLimit: Duration = HookKind.afterSave.defaultTimeLimit, runs: AfterHookTiming = .beforeResponse,
        _ handler: @escaping AfterSaveHandler
    ) {
        register(.afterSave, className, timeLimit: timeLimit, runs: runs) { call in
            try await handler(
                AfterSaveRequest(object: call.object(of: className), original: call.original(of: className), context: call.context))
            return .null
        }
    }

    /// Runs `handler` before each delete of an object of `className`; throwing stops the delete.
    public mutating func beforeDelete(
        _ className: String, timeLimit: Duration = HookKind.beforeDelete.defaultTimeLimit, _ handler: @escaping DeleteHandler
    ) {
        register(.beforeDelete, className, timeLimit: timeLimit) { call in
            try await handler(DeleteRequest(object: call.object(of: className), context: call.context))
            return .null
        }
    }

    /// Runs `handler` after each committed delete of an object of `className`, at least once: before
    /// the response is sent, or after it with `runs: .afterResponse`.
    public mutating func afterDelete(
        _ className: String, timeLimit: Duration = HookKind.afterDelete.defaultTimeLimit, runs: AfterHookTiming = .beforeResponse,
        _ handler: @escaping DeleteHandler
    ) {
        register(.afterDelete, className, timeLimit: timeLimit, runs: runs) { call in
            try await handler(DeleteRequest(object: call.object(of: className), context: call.context))
            return .null
        }
    }

    /// Serves `POST /functions/<name>` with `handler`, at most as often as `rateLimit` allows.
    public mutating func function(
        _ name: String, timeLimit: Duration = HookKind.function.defaultTimeLimit, rateLimit: HookRateLimit? = nil,
        _ handler: @escaping FunctionHandler
    ) {
        register(.function, name, timeLimit: timeLimit, rateLimit: rateLimit) { call in
            try await handler(FunctionRequest(params: call.input.objectValue ?? [:], context: call.context))
        }
    }
}

extension HookRegistry.Call {
    /// The input as an object of `className`.
    func object(of className: String) -> ParseObject {
        ParseObject(className: className, json: input.objectValue ?? [:])
    }

    /// The original as an object of `className`, if the call has one.
    func original(of className: String) -> ParseObject? {
        original?.objectValue.map { ParseObject(className: className, json: $0) }
    }
}
