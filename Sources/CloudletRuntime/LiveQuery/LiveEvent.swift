import Cloudlet

/// What a committed write is to one subscription, decided as Parse Server decides it from whether
/// the subscriber sees the object before and after the write: seeing it means that it matches the
/// query and that the subscriber may read it (ACL, class-level permissions).
///
/// | before | after | event |
/// |---|---|---|
/// | seen | seen | `update` |
/// | seen | not seen | `leave` |
/// | not seen | seen | `enter` if the object existed before, else `create` |
/// | not seen | not seen | none |
///
/// A delete seen before is a `delete`. A subscription that watches fields gets an `update` or a
/// `create` only when one of them changed (a field set on a new object is a change).
public enum LiveEvent: String, Sendable, CaseIterable {
    case create, enter, update, leave, delete

    /// The event `change` makes for a subscriber that sees the object before it (`seenBefore`:
    /// the original, or for a delete the object as it was) and after it (`seenAfter`), watching
    /// `watch` (nil for every field); nil for none.
    public static func of(_ change: CommittedObjectChange, seenBefore: Bool, seenAfter: Bool, watch: [String]?) -> LiveEvent? {
        if change.kind == .delete { return seenBefore ? .delete : nil }
        let event: LiveEvent
        switch (seenBefore, seenAfter) {
        case (true, true): event = .update
        case (true, false): event = .leave
        case (false, true): event = change.original == nil ? .create : .enter
        case (false, false): return nil
        }
        guard event == .update || event == .create, let watch else { return event }
        return watch.contains { change.object.fields[$0] != change.original?.fields[$0] } ? event : nil
    }

    /// Whether the event carries the object as it was before the write too (`original`).
    public var carriesOriginal: Bool {
        self == .update || self == .enter || self == .leave
    }
}
