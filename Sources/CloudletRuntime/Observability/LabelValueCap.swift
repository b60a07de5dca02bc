import Synchronization

/// Bounds a metrics label whose values clients choose (an analytics event's name): within each
/// scope (an app), the first ``limit`` distinct values stay labels of their own; any later value,
/// one longer than ``maximumLength`` bytes, and the ``overflow`` value itself count as ``overflow``.
/// So a hostile client adds at most ``limit`` series per scope, however many names it sends.
final class LabelValueCap: Sendable {
    /// The most distinct values one scope keeps.
    let limit: Int
    /// The longest value, in UTF-8 bytes, that may be a label.
    let maximumLength: Int
    /// The label of every value past the cap.
    let overflow: String
    private let seen = Mutex<[String: Set<String>]>([:])

    init(limit: Int, maximumLength: Int, overflow: String) {
        self.limit = limit
        self.maximumLength = maximumLength
        self.overflow = overflow
    }

    /// The label `value` counts under in `scope`.
    func label(_ value: String, in scope: String) -> String {
        guard value != overflow, value.utf8.count <= maximumLength else { return overflow }
        return seen.withLock { seen in
            if seen[scope]?.contains(value) == true { return value }
            guard seen[scope, default: []].count < limit else { return overflow }
            seen[scope, default: []].insert(value)
            return value
        }
    }
}
