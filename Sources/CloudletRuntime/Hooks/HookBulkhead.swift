import Cloudlet
import Synchronization

/// Caps how many of one app's hook invocations run at once and how many may wait for a slot, so
/// that one app's slow hooks cannot take every worker slot or pile up calls without end. Past
/// the queue a call is refused at once with 503 (code 155, "too many hook calls"); a waiting call
/// that is cancelled (its deadline passed) leaves the queue.
///
/// Only client requests' hooks take a slot: a hook's nested hooks run in their caller's slot, so
/// hooks that save through the store can never wait on themselves.
public final class HookBulkhead: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var maximumRunning: Int
        var maximumWaiting: Int
        var running = 0
        var waiting: [Waiter] = []
        var nextId: UInt64 = 0

        /// Takes a slot if one is free and no call waits for one.
        mutating func admit() -> Bool {
            guard running < maximumRunning && waiting.isEmpty else { return false }
            running += 1
            return true
        }
    }

    private let state: Mutex<State>

    /// A bulkhead letting `maximumRunning` calls run and `maximumWaiting` wait.
    public init(maximumRunning: Int, maximumWaiting: Int) {
        state = Mutex(State(maximumRunning: max(1, maximumRunning), maximumWaiting: max(0, maximumWaiting)))
    }

    /// The error of a call refused because too many are waiting already.
    public static let full = ParseError(code: 155, message: "too many hook calls are running or waiting for this app", httpStatus: 503)

    /// Runs `body` in a slot, waiting for one if all are taken; throws ``full`` if too many wait.
    /// A wait also ends at the ``CallDeadline`` of the current task, if it has one.
    public func run<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        try await acquire(until: CallDeadline.current)
        defer { release() }
        return try await body()
    }

    /// Changes the caps; calls already running or waiting keep their places.
    public func resize(maximumRunning: Int, maximumWaiting: Int) {
        let woken = state.withLock { state -> [Waiter] in
            state.maximumRunning = max(1, maximumRunning)
            state.maximumWaiting = max(0, maximumWaiting)
            return Self.admitWaiters(&state)
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// How many calls run and wait now.
    public var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    private func acquire(until deadline: CallDeadline?) async throws {
        enum Entry {
            case admitted
            case refused
            case queued
        }
        // A free slot with no one ahead is taken at once, with no wait to set up.
        let id = state.withLock { state -> UInt64? in
            if state.admit() { return nil }
            state.nextId += 1
            return state.nextId
        }
        guard let id else { return }
        defer { deadline?.leave() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let entry = state.withLock { state -> Entry in
                    if state.admit() { return .admitted }
                    guard state.waiting.count < state.maximumWaiting else { return .refused }
                    state.waiting.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch entry {
                case .admitted: continuation.resume()
                case .refused: continuation.resume(throwing: Self.full)
                case .queued:
                    if Task.isCancelled { cancel(id) }
                    deadline?.enter { self.cancel(id, with: DeadlineRace.DeadlineExceeded()) }
                }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Ends the wait of `id`, if it still waits, with `error`.
    private func cancel(_ id: UInt64, with error: any Error = CancellationError()) {
        let removed = state.withLock { state -> Waiter? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index)
        }
        removed?.continuation.resume(throwing: error)
    }

    private func release() {
        let woken = state.withLock { state -> [Waiter] in
            state.running -= 1
            return Self.admitWaiters(&state)
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    private static func admitWaiters(_ state: inout State) -> [Waiter] {
        var woken: [Waiter] = []
        while state.running < state.maximumRunning, !state.waiting.isEmpty {
            state.running += 1
            woken.append(state.waiting.removeFirst())
        }
        return woken
    }
}
