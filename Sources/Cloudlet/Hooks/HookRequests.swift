/// What every hook request has in common: its context, whose members (`user`, `store`, `logger`,
/// `deadline`, `eventId`, …) read straight off the request: `request.user`.
@dynamicMemberLookup
public protocol HookRequest: Sendable {
    /// The call's context.
    var context: HookContext { get }
}

extension HookRequest {
    /// The context's members, read straight off the request.
    public subscript<Value>(dynamicMember keyPath: KeyPath<HookContext, Value>) -> Value {
        context[keyPath: keyPath]
    }

    /// The app's config parameters as the caller may read them, as `GET /config` answers them:
    /// `request.store.asMaster.config()` reads the `masterKeyOnly` ones too.
    ///
    /// ```swift
    /// let limit = try await request.config()["maxPostLength"]?.intValue ?? 280
    /// ```
    public func config() async throws -> [String: ParseValue] {
        try await context.store.config()
    }
}

/// What a `beforeSave` hook receives: the object about to be written, which the hook may change.
public struct BeforeSaveRequest: HookRequest {
    /// The object as it will be written; changes the hook makes here are saved.
    public var object: ParseObject
    /// The object as it is stored now, for an update; nil for a new object.
    public let original: ParseObject?
    /// The call's context.
    public let context: HookContext

    package init(object: ParseObject, original: ParseObject?, context: HookContext) {
        self.object = object
        self.original = original
        self.context = context
    }
}

/// What an `afterSave` hook receives: the object as it was written.
public struct AfterSaveRequest: HookRequest {
    /// The object as it was saved.
    public let object: ParseObject
    /// The object as it was before this save, for an update; nil for a new object.
    public let original: ParseObject?
    /// The call's context.
    public let context: HookContext

    package init(object: ParseObject, original: ParseObject?, context: HookContext) {
        self.object = object
        self.original = original
        self.context = context
    }
}

/// What a `beforeDelete` or `afterDelete` hook receives: the object being (or just) deleted.
public struct DeleteRequest: HookRequest {
    /// The object as it is (or was) stored.
    public let object: ParseObject
    /// The call's context.
    public let context: HookContext

    package init(object: ParseObject, context: HookContext) {
        self.object = object
        self.context = context
    }
}

/// What a `function` hook receives: the JSON body of `POST /functions/:name`.
public struct FunctionRequest: HookRequest {
    /// The parameters the client sent.
    public let params: [String: ParseValue]
    /// The call's context.
    public let context: HookContext

    package init(params: [String: ParseValue], context: HookContext) {
        self.params = params
        self.context = context
    }
}
