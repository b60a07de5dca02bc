import Cloudlet
import Synchronization

/// How often each hook ran, failed and timed out: what operators count and what tests assert on.
public final class HookStatistics: Sendable {
    /// The counts of one hook.
    public struct Counts: Sendable, Hashable {
        /// Times the hook was started.
        public var invocations = 0
        /// Times it threw (a timeout not included).
        public var failures = 0
        /// Times it ran past its deadline.
        public var timeouts = 0

        public init(invocations: Int = 0, failures: Int = 0, timeouts: Int = 0) {
            self.invocations = invocations
            self.failures = failures
            self.timeouts = timeouts
        }
    }

    /// Identifies a hook: its kind and its class or function name.
    public struct Key: Sendable, Hashable {
        public let kind: HookKind
        public let name: String

        public init(_ kind: HookKind, _ name: String) {
            self.kind = kind
            self.name = name
        }
    }

    private let counts = Mutex<[Key: Counts]>([:])

    public init() {}

    /// The counts of the hook of `kind` for `name`.
    public func counts(_ kind: HookKind, _ name: String) -> Counts {
        counts.withLock { $0[Key(kind, name)] } ?? Counts()
    }

    /// All counts so far.
    public var all: [Key: Counts] { counts.withLock { $0 } }

    package func record(_ kind: HookKind, _ name: String, _ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0[Key(kind, name), default: Counts()]) }
    }
}
