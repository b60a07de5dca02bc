import Testing

/// The trait of a suite or test that waits on wall-clock time (idle timeouts, pacing, deadlines,
/// kills): no two tests with it run at the same time, so that they do not stretch each other's
/// waits past their bounds, while every test without it runs beside them.
///
/// Each test case takes its turn once it has its place among the tests that run at once
/// (`SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH`), not before: Swift Testing hands those
/// places out in the order asked, and a test that asked only after its turn came would wait behind
/// every test queued meanwhile, so the timing tests would run one by one after all the others
/// instead of beside them. A suite's tests take a turn each (the trait is recursive); the suite
/// needs no `.serialized`.
///
/// ```swift
/// @Suite(.timing) struct ConnectionTimeoutTests { … }
/// ```
public struct TimingTrait: SuiteTrait, TestTrait, TestScoping {
    /// The tests of a suite with the trait have it too.
    public var isRecursive: Bool { true }

    /// One scope for each test case, inside its place among the tests running at once.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    /// Runs `function` once no other test case with this trait runs.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // A test marked as well as its suite is one turn, not two.
        if Self.holdsTurn { return try await function() }
        await Self.turns.take()
        do {
            try await Self.$holdsTurn.withValue(true) { try await function() }
        } catch {
            await Self.turns.giveBack()
            throw error
        }
        await Self.turns.giveBack()
    }

    /// Whether the current task runs inside a turn.
    @TaskLocal private static var holdsTurn = false

    /// One turn for the whole test process, taken in the order asked.
    private static let turns = Turns()

    private actor Turns {
        private var taken = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard taken else {
                taken = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func giveBack() {
            if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
        }
    }
}

extension Trait where Self == TimingTrait {
    /// Waits on wall-clock time: runs when no other test marked `.timing` runs.
    public static var timing: Self { TimingTrait() }
}
