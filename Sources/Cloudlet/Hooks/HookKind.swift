/// The kinds of hook a registry holds.
public enum HookKind: String, Sendable, Hashable, CaseIterable, Codable {
    case beforeSave
    case afterSave
    case beforeDelete
    case afterDelete
    case function

    /// The time limit Parse.com enforced for this kind: 3 s for triggers, 15 s for functions.
    public var defaultTimeLimit: Duration {
        self == .function ? .seconds(15) : .seconds(3)
    }

}
