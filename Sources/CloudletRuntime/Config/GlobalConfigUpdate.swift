import Cloudlet

/// The body of `PUT /config`, checked: `{"params": {"a": 1, "b": {"__op": "Delete"}},
/// "masterKeyOnly": {"a": true}}`. Each parameter named in `params` is set, or changed by its field
/// operation (`Delete`, `Increment`, `Add`, `AddUnique`, `Remove`), and its `masterKeyOnly` flag
/// set from `masterKeyOnly` (false when not given), as Parse Server does; the other parameters stay
/// as they are. A deleted parameter loses its flag too.
public struct GlobalConfigUpdate: Sendable, Equatable {
    /// The change to each named parameter.
    let changes: [String: FieldChange]
    /// The flags of the parameters named in ``changes``.
    let masterKeyOnly: [String: Bool]

    /// The update `body` asks for. Throws 111 when `params` or `masterKeyOnly` is not an object, a
    /// flag not a boolean, or a value a malformed Parse type or operation; 105 for a parameter
    /// name that is not a letter followed by up to 127 letters, digits or `_`.
    public init(body: [String: ParseValue]) throws(ParseError) {
        guard let params = body["params"]?.objectValue else { throw .incorrectType("params must be an object") }
        let flags = body["masterKeyOnly"] ?? .object([:])
        guard let flagMembers = flags.objectValue else { throw .incorrectType("masterKeyOnly must be an object") }
        var changes: [String: FieldChange] = [:]
        var masterKeyOnly: [String: Bool] = [:]
        for (name, value) in params {
            guard ParseNames.isIdentifier(name, maxLength: 128) else { throw .invalidKeyName(name) }
            if let operation = try FieldOperation.parse(value, field: name) {
                changes[name] = .operation(operation)
            } else {
                _ = try ParseFieldType.of(value, field: name)
                changes[name] = .set(value)
            }
            let flag = flagMembers[name] ?? .bool(false)
            guard let isMasterKeyOnly = flag.boolValue else { throw .incorrectType("masterKeyOnly.\(name) must be a boolean") }
            masterKeyOnly[name] = isMasterKeyOnly
        }
        self.changes = changes
        self.masterKeyOnly = masterKeyOnly
    }

    /// `config` with the update applied. Throws 111 for an operation the current value does not
    /// take (an `Increment` of a string).
    public func applied(to config: GlobalConfig) throws(ParseError) -> GlobalConfig {
        var updated = config
        for (name, change) in changes {
            let value: ParseValue?
            switch change {
            case .set(let newValue): value = newValue
            case .operation(let operation): value = try operation.apply(to: config.params[name], field: name)
            }
            updated.params[name] = value
            updated.masterKeyOnly[name] = value == nil ? nil : masterKeyOnly[name]
        }
        return updated
    }
}
