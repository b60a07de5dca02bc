/// The ends of a work loop's done runs, held back for a moment so that many share one write.
///
/// Each after hook's row is deleted once its hook has run. Written as each run ends, that is one
/// commit of its own per save when saves come one at a time, the writer's dearest step; held for
/// ``window``, the ends of that stretch go in one write. A row whose end is held is still leased
/// to the loop, so no other claim takes it; if the process dies meanwhile, the row is claimed
/// again once its lease runs out and its hook runs a second time, as after a death between the
/// run and its write (after hooks run at least once). An end that is not `done` (a retry, a
/// release) is written at once with those held, since it makes its row due again.
struct EndBatch {
    /// How long the first held end waits for others.
    static let window: Duration = .milliseconds(20)
    /// The most ends held: past it, they are written.
    static let maximum = 256

    private var held: [EndedWork] = []
    private var since: ContinuousClock.Instant?

    /// Adds `ended`, at `now`, and answers the ends to write now (all those held, once one is not
    /// `done`, the window has passed or ``maximum`` are held) and whether a window opened, so that
    /// the caller looks again once it has passed.
    mutating func add(_ ended: [EndedWork], now: ContinuousClock.Instant) -> (write: [EndedWork], opened: Bool) {
        held += ended
        guard !held.isEmpty else { return ([], false) }
        let windowStart = since ?? now
        if held.count >= Self.maximum || now - windowStart >= Self.window || ended.contains(where: { $0.outcome != .done }) {
            return (takeAll(), false)
        }
        defer { since = windowStart }
        return ([], since == nil)
    }

    /// Every end held, no longer held.
    mutating func takeAll() -> [EndedWork] {
        defer {
            held = []
            since = nil
        }
        return held
    }
}
