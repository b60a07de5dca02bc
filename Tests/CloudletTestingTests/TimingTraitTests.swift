import CloudletTesting
import Synchronization
import Testing

/// `.timing` gives each test case its own turn, taken inside the case's place among the tests
/// running at once, and no two turns overlap.
@Suite struct TimingTraitTests {
    @Test func eachTestCaseTakesItsOwnTurnAndASuiteOrFunctionTakesNone() throws {
        let trait: TimingTrait = .timing
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        #expect(trait.isRecursive, "the tests of a suite with the trait have it too")
        #expect(trait.scopeProvider(for: test, testCase: nil) == nil, "no turn around a whole suite or function")
        #expect(trait.scopeProvider(for: test, testCase: testCase) != nil)
    }

    /// How many scopes run at once, and the most that ever did.
    private final class Overlap: Sendable {
        let counts = Mutex((now: 0, most: 0, nested: 0))
    }

    @Test(.timeLimit(.minutes(1))) func turnsNeverOverlapAndATurnInsideATurnIsTheSameOne() async throws {
        let trait: TimingTrait = .timing
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        let running = Overlap()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await trait.provideScope(for: test, testCase: testCase) {
                        running.counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        try await Task.sleep(for: .milliseconds(20))
                        // A test marked as well as its suite: the inner scope runs in the same turn.
                        try await trait.provideScope(for: test, testCase: testCase) { running.counts.withLock { $0.nested += 1 } }
                        running.counts.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(running.counts.withLock { $0.most } == 1)
        #expect(running.counts.withLock { $0.nested } == 4)
    }
}
