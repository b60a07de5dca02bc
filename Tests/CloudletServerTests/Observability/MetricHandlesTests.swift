import CoreMetrics
import Synchronization
import Testing

@testable import CloudletRuntime

/// Each counter and timer is made through the metrics factory once, then reused: making one checks
/// its name and labels in the registry, which no request should pay for again.
@Suite struct MetricHandlesTests {
    /// A factory that counts what it is asked to make.
    final class CountingFactory: MetricsFactory, Sendable {
        let made = Mutex<[String: Int]>([:])

        private final class Handler: CounterHandler, RecorderHandler, TimerHandler {
            func increment(by: Int64) {}
            func reset() {}
            func record(_ value: Int64) {}
            func record(_ value: Double) {}
            func recordNanoseconds(_ duration: Int64) {}
        }

        func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
            made.withLock { $0["counter " + label, default: 0] += 1 }
            return Handler()
        }

        func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Handler() }

        func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
            made.withLock { $0["timer " + label, default: 0] += 1 }
            return Handler()
        }

        func destroyCounter(_ handler: any CounterHandler) {}
        func destroyRecorder(_ handler: any RecorderHandler) {}
        func destroyTimer(_ handler: any TimerHandler) {}
    }

    @Test func aCounterAndATimerAreMadeOnceForTheSameLabels() {
        let factory = CountingFactory()
        let metrics = CloudletMetrics(factory: factory, render: { [] })
        for _ in 0..<3 { metrics.requestAnswered(app: "a", route: "/parse/classes/{className}", status: 201, duration: .milliseconds(1)) }
        metrics.requestAnswered(app: "b", route: "/parse/classes/{className}", status: 201, duration: .milliseconds(1))
        let made = factory.made.withLock { $0 }
        #expect(made["counter cloudlet_http_requests_total"] == 2, "one per app: \(made)")
        #expect(made["timer cloudlet_http_request_duration_seconds"] == 2, "one per app: \(made)")

        metrics.requestAnswered(app: "a", route: "/parse/classes/{className}", status: 404, duration: .milliseconds(1))
        let afterAnotherStatus = factory.made.withLock { $0 }
        #expect(afterAnotherStatus["counter cloudlet_http_requests_total"] == 3, "a counter for the new status")
        #expect(afterAnotherStatus["timer cloudlet_http_request_duration_seconds"] == 2, "the route's timer again")
    }

    @Test func aHooksTimerIsMadeOnceAndItsCounterOncePerOutcome() {
        let factory = CountingFactory()
        let metrics = CloudletMetrics(factory: factory, render: { [] })
        for outcome in [HookOutcome.ok, .ok, .error, .ok, .timeout, .error] {
            metrics.hookRan(app: "a", hook: "beforeSave:Note", outcome: outcome, duration: .milliseconds(1))
        }
        metrics.hookRan(app: "a", hook: "afterSave:Note", outcome: .ok, duration: .milliseconds(1))
        let made = factory.made.withLock { $0 }
        #expect(made["counter cloudlet_hook_invocations_total"] == 4, "three outcomes of one hook, one of the other: \(made)")
        #expect(made["timer cloudlet_hook_duration_seconds"] == 2, "one per hook: \(made)")
    }
}
