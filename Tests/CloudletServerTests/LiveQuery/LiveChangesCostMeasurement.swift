import Cloudlet
import CloudletRuntime
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What publishing to the LiveQuery feed costs a save, on each store: saves of a class the feed
/// does not publish (the app's `classNames` empty) against saves of one it does, with a
/// subscriber that counts what it hears (on PostgreSQL, once every save has been heard). Not a
/// test (it asserts nothing) but a measurement, run only when `CLOUDLET_MEASURE_LIVE_CHANGES` is
/// set (to the number of saves of each run; 2,000 by default).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CLOUDLET_MEASURE_LIVE_CHANGES"] != nil, "a measurement"))
struct LiveChangesCostMeasurement {
    private static let saves = Int(ProcessInfo.processInfo.environment["CLOUDLET_MEASURE_LIVE_CHANGES"] ?? "") ?? 2_000

    @Test(arguments: TestStore.allCases) func savesWithAndWithoutPublishing(_ store: TestStore) async throws {
        try await store.with({ app in { try await app.stores() } }) { stores, _ in
            let counter = HeardCount()
            stores.liveChanges.subscribe(counter) { counter, _ in counter.add() }
            // A first run warms the connections and statements; then the two settings take turns.
            let runs = [("warm-up", false)] + Array(repeating: [("not published", false), ("published", true)], count: 3).joined()
            for (index, (run, published)) in runs.enumerated() {
                stores.liveChanges.classNames = published ? ["Note"] : []
                for tasks in [1, 16] {
                    let line = try await Self.measure(stores, counter, tasks: tasks, prefix: "\(index)-\(tasks)-", awaitingHeard: published)
                    print("\(store) \(run), \(tasks) task(s): \(line)")
                }
            }
        }
    }

    /// Saves ``saves`` small objects in `tasks` tasks at once, then waits (if `awaitingHeard`) until
    /// each has been heard; answers the wall and CPU time per save.
    private static func measure(_ stores: AppStores, _ counter: HeardCount, tasks: Int, prefix: String, awaitingHeard: Bool) async throws -> String {
        let each = saves / tasks
        let heardBefore = counter.count
        let (cpu, start) = (processCPU(), ContinuousClock.now)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for n in 0..<each {
                        let id = "\(prefix)\(task)-\(n)"
                        try await stores.objects.insert(LiveChangesTests.note(id, ["n": .number(Double(n)), "text": "a short message"]), outbox: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        while awaitingHeard, counter.count < heardBefore + tasks * each { try await Task.sleep(for: .milliseconds(1)) }
        let wall = (ContinuousClock.now - start) / (tasks * each)
        let used = (processCPU() - cpu) / Double(tasks * each)
        return String(
            format: "%d saves, %d heard, %.1f µs wall per save, %.1f µs of this process's CPU per save", tasks * each, counter.count - heardBefore,
            wall.seconds * 1e6, used * 1e6)
    }

    /// How many changes a subscriber heard.
    private final class HeardCount: Sendable {
        private let heard = Mutex(0)
        var count: Int { heard.withLock { $0 } }
        func add() { heard.withLock { $0 += 1 } }
    }

    /// This process's user and system CPU time so far, in seconds.
    private static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return [usage.ru_utime, usage.ru_stime].reduce(0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
    }
}
