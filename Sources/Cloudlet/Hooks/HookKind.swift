/// The kinds of hook a registry holds.
public enum HookKind: String, Sendable, Hashable, CaseIterable, Codable {
    case beforeSave
    case afterSave
    case beforeDelete
    case afterDelete
    case function
    case job

    /// The time limit Parse.com enforced for this kind: 3 s for triggers, 15 s for functions and
    /// 15 minutes for background jobs.
    public var defaultTimeLimit: Duration {
        switch self {
        case .function: .seconds(15)
        case .job: .seconds(15 * 60)
        default: .seconds(3)
        }
    }

}
