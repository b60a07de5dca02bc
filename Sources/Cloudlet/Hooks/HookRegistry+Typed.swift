/// Typed hooks: the object is decoded into a Codable model before the hook runs, and for a
/// `beforeSave` the model is written back into the object afterwards. These are adapters over the
/// untyped hooks; a model that does not decode fails the call with code 142 and the reason.
///
/// ```swift
/// struct Message: Codable, Sendable { var text: String; var senderId: String? }
///
/// hooks.beforeSave("Messages", as: Message.self) { message, context in
///     message.text = message.text.trimmingCharacters(in: .whitespaces)
/// }
/// ```
extension HookRegistry {
    /// Runs `handler` on the object decoded as `Model` before each save of `className`; the model's
    /// fields, as the handler leaves them, are saved.
    public mutating func beforeSave<Model: Codable & Sendable>(
        _ className: String, as model: Model.Type, timeLimit: Duration = HookKind.beforeSave.defaultTimeLimit,
        _ handler: @escaping @Sendable (inout Model, HookContext) async throws -> Void
    ) {
        beforeSave(className, timeLimit: timeLimit) { request in
            var value = try Self.decode(Model.self, from: request.object)
            try await handler(&value, request.context)
            request.object = try Self.written(value, over: request.object)
        }
    }

    /// Runs `handler` on the saved object decoded as `Model` after each save of `className`.
    public mutating func afterSave<Model: Decodable & Sendable>(
        _ className: String, as model: Model.Type, timeLimit: Duration = HookKind.afterSave.defaultTimeLimit,
        runs: AfterHookTiming = .beforeResponse, _ handler: @escaping @Sendable (Model, HookContext) async throws -> Void
    ) {
        afterSave(className, timeLimit: timeLimit, runs: runs) { request in
            try await handler(try Self.decode(Model.self, from: request.object), request.context)
        }
    }

    /// Runs `handler` on the objects each query or get on `className` found, decoded as `Model`; the
    /// models it returns, encoded, are the results. A returned model whose `objectId` is one of the
    /// found objects' is written over that object, so its fields the model does not name stay.
    ///
    /// ```swift
    /// hooks.afterFind("Messages", as: Message.self) { messages, context in
    ///     messages.filter { !$0.text.isEmpty }
    /// }
    /// ```
    public mutating func afterFind<Model: Codable & Sendable>(
        _ className: String, as model: Model.Type, timeLimit: Duration = HookKind.afterFind.defaultTimeLimit,
        _ handler: @escaping @Sendable ([Model], HookContext) async throws -> [Model]
    ) {
        afterFind(className, timeLimit: timeLimit) { request in
            let found = Dictionary(request.objects.compactMap { object in object.objectId.map { ($0, object) } }) { first, _ in first }
            let models = try await handler(try request.objects.map { try Self.decode(Model.self, from: $0) }, request.context)
            request.objects = try models.map { model in
                guard let fields = try ParseCoding.encode(model).objectValue else {
                    throw HookError.failed("the model of \(className) must encode as an object")
                }
                let written = ParseObject(className: className, json: fields)
                guard let id = written.objectId, var object = found[id] else { return written }
                object.fields.merge(written.fields) { _, new in new }
                return object
            }
        }
    }

    /// Runs `handler` on the user of each login, decoded as `Model`, before its session is made;
    /// throwing refuses the login (see ``beforeLogin(timeLimit:_:)``).
    public mutating func beforeLogin<Model: Decodable & Sendable>(
        as model: Model.Type, timeLimit: Duration = HookKind.beforeLogin.defaultTimeLimit,
        _ handler: @escaping @Sendable (Model, HookContext) async throws -> Void
    ) {
        beforeLogin(timeLimit: timeLimit) { request in try await handler(try Self.decode(Model.self, from: request.user), request.context) }
    }

    /// Runs `handler` on the user of each login, decoded as `Model`, once its session is made.
    public mutating func afterLogin<Model: Decodable & Sendable>(
        as model: Model.Type, timeLimit: Duration = HookKind.afterLogin.defaultTimeLimit,
        _ handler: @escaping @Sendable (Model, HookContext) async throws -> Void
    ) {
        afterLogin(timeLimit: timeLimit) { request in try await handler(try Self.decode(Model.self, from: request.user), request.context) }
    }

    /// Serves `POST /functions/<name>` with parameters decoded as `Input` and a result encoded from `Output`.
    public mutating func function<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String, input: Input.Type, timeLimit: Duration = HookKind.function.defaultTimeLimit,
        rateLimit: HookRateLimit? = nil, _ handler: @escaping @Sendable (Input, HookContext) async throws -> Output
    ) {
        function(name, timeLimit: timeLimit, rateLimit: rateLimit) { request in
            let params = try Self.decode(Input.self, parametersOf: name, request.params)
            return try ParseCoding.encode(try await handler(params, request.context))
        }
    }

    /// Runs the job `name` with its parameters decoded as `Input`; a run whose parameters do not
    /// decode fails with code 142 and the reason as its message.
    ///
    /// ```swift
    /// struct Purge: Decodable, Sendable { var olderThanDays: Int }
    ///
    /// hooks.job("purge", input: Purge.self) { purge, request in
    ///     try await request.progress("purging posts older than \(purge.olderThanDays) days")
    /// }
    /// ```
    public mutating func job<Input: Decodable & Sendable>(
        _ name: String, input: Input.Type, timeLimit: Duration = HookKind.job.defaultTimeLimit,
        _ handler: @escaping @Sendable (Input, JobRequest) async throws -> Void
    ) {
        job(name, timeLimit: timeLimit) { request in
            try await handler(try Self.decode(Input.self, parametersOf: name, request.params), request)
        }
    }

    /// The parameters of the function or job `name` decoded as `Input`, or 142 with the reason.
    private static func decode<Input: Decodable>(_ type: Input.Type, parametersOf name: String, _ params: [String: ParseValue]) throws -> Input {
        do {
            return try ParseCoding.decode(type, from: .object(params))
        } catch {
            throw HookError.validation("invalid parameters for \(name): \(describe(error))")
        }
    }

    /// `object` with the fields (and ACL) `model` encodes written over its own.
    static func written<Model: Encodable>(_ model: Model, over object: ParseObject) throws -> ParseObject {
        guard let fields = try ParseCoding.encode(model).objectValue else {
            throw HookError.failed("the model of \(object.className) must encode as an object")
        }
        let written = ParseObject(className: object.className, json: fields)
        var object = object
        object.fields.merge(written.fields) { _, new in new }
        if let acl = written.acl { object.acl = acl }
        return object
    }

    static func decode<Model: Decodable>(_ type: Model.Type, from object: ParseObject) throws -> Model {
        do {
            return try ParseCoding.decode(type, from: .object(object.json))
        } catch {
            throw HookError.validation("invalid \(object.className): \(describe(error))")
        }
    }

    /// A short, client-safe account of a decoding failure: which field, and what was wrong.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "could not decode" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type for field \(path(context))"
        case .dataCorrupted(let context):
            return "invalid value for field \(path(context))"
        @unknown default:
            return "could not decode"
        }
    }
}
