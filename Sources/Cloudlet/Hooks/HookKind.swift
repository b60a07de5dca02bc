/// The kinds of hook a registry holds. Each kind is one entry of ``definition``: adding a kind is a
/// case here, its entry there, a registration method, and the runtime's call site.
public enum HookKind: String, Sendable, Hashable, CaseIterable, Codable {
    case beforeSave
    case afterSave
    case beforeDelete
    case afterDelete
    case function
    case beforeSaveFile
    case afterSaveFile
    case beforeDeleteFile
    case afterDeleteFile
    case job
    case beforeFind
    case afterFind
    case beforeLogin
    case afterLogin
    case afterLogout
    case beforeConnect
    case beforeSubscribe
    case afterLiveQueryEvent

    /// What the kind binds to, its default time limit, what it receives and returns, and its number
    /// on the wire: the one table the registry, the wire, the worker and the host read.
    public var definition: HookKindDefinition {
        switch self {
        case .beforeSave: HookKindDefinition(wireNumber: 1, binding: .className, receives: .objectAndOriginal, returns: .object)
        case .afterSave: HookKindDefinition(wireNumber: 2, binding: .className, receives: .objectAndOriginal, returns: .nothing)
        case .beforeDelete: HookKindDefinition(wireNumber: 3, binding: .className, receives: .object, returns: .nothing)
        case .afterDelete: HookKindDefinition(wireNumber: 4, binding: .className, receives: .object, returns: .nothing)
        case .function:
            HookKindDefinition(wireNumber: 5, binding: .name, defaultTimeLimit: .seconds(15), receives: .parameters, returns: .value)
        case .beforeSaveFile: HookKindDefinition(wireNumber: 6, binding: .nothing, receives: .file, returns: .file)
        case .afterSaveFile: HookKindDefinition(wireNumber: 7, binding: .nothing, receives: .file, returns: .nothing)
        case .beforeDeleteFile: HookKindDefinition(wireNumber: 8, binding: .nothing, receives: .file, returns: .nothing)
        case .afterDeleteFile: HookKindDefinition(wireNumber: 9, binding: .nothing, receives: .file, returns: .nothing)
        case .job:
            HookKindDefinition(wireNumber: 16, binding: .name, defaultTimeLimit: .seconds(15 * 60), receives: .parameters, returns: .nothing)
        case .beforeFind: HookKindDefinition(wireNumber: 10, binding: .className, receives: .query, returns: .query)
        case .afterFind: HookKindDefinition(wireNumber: 11, binding: .className, receives: .objectsAndQuery, returns: .objects)
        case .beforeLogin: HookKindDefinition(wireNumber: 12, binding: .nothing, receives: .object, returns: .nothing)
        case .afterLogin: HookKindDefinition(wireNumber: 13, binding: .nothing, receives: .object, returns: .nothing)
        case .afterLogout: HookKindDefinition(wireNumber: 14, binding: .nothing, receives: .object, returns: .nothing)
        case .beforeConnect: HookKindDefinition(wireNumber: 17, binding: .nothing, receives: .parameters, returns: .nothing)
        case .beforeSubscribe: HookKindDefinition(wireNumber: 18, binding: .className, receives: .query, returns: .query)
        case .afterLiveQueryEvent: HookKindDefinition(wireNumber: 19, binding: .className, receives: .parameters, returns: .value)
        }
    }

    /// The time limit a hook of this kind has unless it sets its own.
    public var defaultTimeLimit: Duration { definition.defaultTimeLimit }

    /// The kind numbered `wireNumber` on the wire, or nil for a number no kind has.
    public init?(wireNumber: UInt8) {
        guard let kind = Self.allCases.first(where: { $0.definition.wireNumber == wireNumber }) else { return nil }
        self = kind
    }
}

/// One entry of the table of hook kinds (see ``HookKind/definition``).
public struct HookKindDefinition: Sendable, Hashable {
    /// What a hook of a kind is registered for.
    public enum Binding: Sendable, Hashable {
        /// A class: one hook per class (`beforeSave("Messages")`).
        case className
        /// A name of its own (`function("hello")`).
        case name
        /// Nothing: one hook per app (`beforeLogin`).
        case nothing
    }

    /// What a hook of a kind receives as its input.
    public enum Input: Sendable, Hashable {
        /// An object.
        case object
        /// An object and, for an update, the object as stored before.
        case objectAndOriginal
        /// A query: `{className, where, order, limit, skip, keys, include}` (see ``ParseQuery``), with
        /// `count` and `get` set when the query is a count or a get by id.
        case query
        /// The objects a query found, with the query as the original.
        case objectsAndQuery
        /// A JSON object of parameters.
        case parameters
        /// An uploaded file: `{"name", "contentType", "size", "metadata"}` (see ``HookFile``).
        case file

        /// Whether `value` has the shape of this input: an array of objects for
        /// ``objectsAndQuery``, a JSON object for the others.
        public func accepts(_ value: ParseValue) -> Bool {
            switch self {
            case .objectsAndQuery: value.isArrayOfObjects
            case .object, .objectAndOriginal, .query, .parameters, .file: value.objectValue != nil
            }
        }
    }

    /// What a hook of a kind may answer.
    public enum Output: Sendable, Hashable {
        /// Nothing: the answer is ignored (`null` on the wire).
        case nothing
        /// An object, which replaces the input object.
        case object
        /// A query, which replaces the input query.
        case query
        /// An array of objects, which replaces the input objects.
        case objects
        /// Any JSON value (a function's result).
        case value
        /// A file (see ``HookFile``), which replaces the input file: its name, content type and metadata.
        case file

        /// Whether `value` has the shape of this output: a JSON object for ``object``, ``query`` and
        /// ``file``, an array of objects for ``objects``, anything for ``value`` and ``nothing``.
        public func accepts(_ value: ParseValue) -> Bool {
            switch self {
            case .nothing, .value: true
            case .object, .query, .file: value.objectValue != nil
            case .objects: value.isArrayOfObjects
            }
        }
    }

    /// The kind's number on the wire (CloudletWire carries it as one byte).
    public let wireNumber: UInt8
    /// What a hook of the kind is registered for.
    public let binding: Binding
    /// The time limit unless a hook sets its own: Parse.com's 3 s for triggers, 15 s for functions,
    /// 15 minutes for jobs.
    public let defaultTimeLimit: Duration
    /// What a hook of the kind receives.
    public let receives: Input
    /// What a hook of the kind may answer.
    public let returns: Output

    /// An entry of the table; triggers default to Parse.com's 3 s.
    public init(
        wireNumber: UInt8, binding: Binding, defaultTimeLimit: Duration = .seconds(3), receives: Input, returns: Output
    ) {
        self.wireNumber = wireNumber
        self.binding = binding
        self.defaultTimeLimit = defaultTimeLimit
        self.receives = receives
        self.returns = returns
    }
}

extension ParseValue {
    /// Whether the value is an array whose elements are all JSON objects.
    fileprivate var isArrayOfObjects: Bool {
        arrayValue?.allSatisfy { $0.objectValue != nil } ?? false
    }
}
