import Synchronization

/// What `work` answers, if it answers within `timeout`; otherwise throws ``NoAnswerInTime`` when
/// `timeout` passes, and cancels `work` (which a statement already sent to the server does not
/// heed: it runs on, unwaited for, and its answer is dropped).
///
/// Unlike a task group, which waits for every child it started, this returns at the timeout
/// however long the work goes on.
func answer<Answer: Sendable>(within timeout: Duration, _ work: @escaping @Sendable () async throws -> Answer) async throws -> Answer {
    let waiter = Waiter<Answer>()
    return try await withCheckedThrowingContinuation { continuation in
        waiter.state.withLock { $0.continuation = continuation }
        let worker = Task {
            do { waiter.resume(with: .success(try await work())) } catch { waiter.resume(with: .failure(error)) }
        }
        waiter.start(
            timer: Task {
                try await Task.sleep(for: timeout)
                worker.cancel()
                waiter.resume(with: .failure(NoAnswerInTime(timeout: timeout)))
            })
    }
}

/// Work that did not answer within its timeout.
struct NoAnswerInTime: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no answer in \(timeout)" }
}

/// A continuation resumed by whichever comes first, the answer or the timer; the answer stops the timer.
private final class Waiter<Answer: Sendable>: Sendable {
    struct State: ~Copyable {
        var continuation: CheckedContinuation<Answer, any Error>?
        var timer: Task<Void, any Error>?
        var done = false
    }

    let state = Mutex(State())

    func start(timer: Task<Void, any Error>) {
        let done = state.withLock { state in
            if !state.done { state.timer = timer }
            return state.done
        }
        if done { timer.cancel() }
    }

    func resume(with result: Result<Answer, any Error>) {
        let (continuation, timer) = state.withLock { state in
            state.done = true
            return (state.continuation.take(), state.timer.take())
        }
        timer?.cancel()
        continuation?.resume(with: result)
    }
}
