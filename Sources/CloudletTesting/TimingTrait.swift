import Testing

/// The trait of a suite or test that waits on wall-clock time (idle timeouts, pacing, deadlines,
/// kills): no two suites or tests with it run at the same time, so that the others running beside
/// them do not stretch their waits past their bounds, while every test without it runs in parallel.
///
/// ```swift
/// @Suite(.serialized, .timing) struct ConnectionTimeoutTests { … }
/// ```
public struct TimingTrait: SuiteTrait, TestTrait, TestScoping {
    /// A suite's scope holds its whole run; its tests take no turn of their own.
    public var isRecursive: Bool { false }

    /// One scope for a suite or a test function, around all of its tests or arguments.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? self : nil
    }

    /// Runs `function` once no other suite or test with this trait runs.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.turns.take()
        do {
            try await function()
        } catch {
            await Self.turns.giveBack()
            throw error
        }
        await Self.turns.giveBack()
    }

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
    /// Waits on wall-clock time: runs when no other suite or test marked `.timing` runs.
    public static var timing: Self { TimingTrait() }
}
