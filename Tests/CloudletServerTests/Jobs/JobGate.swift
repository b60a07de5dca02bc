import Synchronization

/// Holds the jobs of a test until the test opens it, and tells the test when a job waits at it.
final class JobGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
    }

    private let state = Mutex(State())

    /// Waits until the gate opens (at once if it is open).
    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                state.arrivals += 1
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if open { continuation.resume() }
        }
    }

    /// Lets every job through, now and from now on.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// How many times a job has reached the gate.
    var arrivals: Int { state.withLock { $0.arrivals } }
}
