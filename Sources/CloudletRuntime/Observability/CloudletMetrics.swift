import CoreMetrics
import Synchronization

/// Cloudlet's metrics, recorded through swift-metrics into a Prometheus registry that the server
/// owns (see `CloudletServer`'s `init(registry:)`), and served as Prometheus text at `/metrics`.
///
/// The pieces that record (the request log middleware, each app's runtime, each worker pool) are
/// handed this value rather than reaching for `MetricsSystem.bootstrap`: the process-global factory
/// may be set only once per process, while tests start many servers in one process and each must
/// read only its own counts. So every server has its own registry, and nothing here is global.
///
/// Labels have bounded values only: `app` is a hosted app's id (apps are created by the operator),
/// `route` a route pattern such as `/parse/classes/{className}` (never a raw path), `hook` a
/// registered hook as `kind:name`, `status` an HTTP status code, `outcome` a ``HookOutcome`` and
/// `event` an analytics event's name, at most ``maximumAnalyticsEventNames`` per app.
///
/// ```swift
/// let metrics = CloudletMetrics()
/// let server = try await CloudletApplication(configuration: configuration, apps: apps, logger: logger, metrics: metrics)
/// print(String(decoding: metrics.exposition(), as: UTF8.self))
/// ```
public struct CloudletMetrics: Sendable {
    private let factory: any MetricsFactory
    private let render: @Sendable () -> [UInt8]
    private let handles = MetricHandles()
    private let analyticsEventNames = LabelValueCap(limit: maximumAnalyticsEventNames, maximumLength: 128, overflow: "other")

    /// The most analytics event names one app has labels for; its later names count as `other`.
    public static let maximumAnalyticsEventNames = 64

    /// Metrics recorded through `factory`, which `render` writes out as Prometheus text (the server
    /// makes them over its Prometheus registry).
    package init(factory: any MetricsFactory, render: @escaping @Sendable () -> [UInt8]) {
        self.factory = factory
        self.render = render
    }

    /// All metrics in the Prometheus text format.
    public func exposition() -> [UInt8] {
        render()
    }

    /// Starts `app`'s counters of rare events at 0, so that they show (and `rate()` works) before
    /// the first one happens.
    package func register(app: String) {
        for label in [
            "cloudlet_rate_limited_total", "cloudlet_worker_restarts_total", "cloudlet_hook_runs_dropped_total",
            "cloudlet_worker_output_dropped_total",
        ] {
            counter(label, [("app", app)]).increment(by: 0)
        }
    }

    /// A request answered `status` on `route` of `app` after `duration`:
    /// `cloudlet_http_requests_total{app,route,status}` and `cloudlet_http_request_duration_seconds{app,route}`.
    package func requestAnswered(app: String, route: String, status: Int, duration: Duration) {
        handles.requests.events(app, route) {
            CoreMetrics.Timer(label: "cloudlet_http_request_duration_seconds", dimensions: [("app", app), ("route", route)], factory: factory)
        }.record(status, duration) {
            CoreMetrics.Counter(
                label: "cloudlet_http_requests_total", dimensions: [("app", app), ("route", route), ("status", String(status))], factory: factory)
        }
    }

    /// One run of `hook` (`kind:name`) of `app` ended with `outcome` after `duration`:
    /// `cloudlet_hook_invocations_total{app,hook,outcome}` and `cloudlet_hook_duration_seconds{app,hook}`.
    func hookRan(app: String, hook: String, outcome: HookOutcome, duration: Duration) {
        handles.hookRuns.events(app, hook) {
            CoreMetrics.Timer(label: "cloudlet_hook_duration_seconds", dimensions: [("app", app), ("hook", hook)], factory: factory)
        }.record(outcome, duration) {
            CoreMetrics.Counter(
                label: "cloudlet_hook_invocations_total", dimensions: [("app", app), ("hook", hook), ("outcome", outcome.rawValue)],
                factory: factory)
        }
    }

    /// An analytics event named `event` sent by a client of `app` (`POST /events/:eventName`):
    /// `cloudlet_analytics_events_total{app,event}`. The name is the client's choice, so only the
    /// first ``maximumAnalyticsEventNames`` names of an app (of up to 128 bytes) are labels; any other
    /// counts as `other`.
    package func analyticsEventTracked(app: String, event: String) {
        counter("cloudlet_analytics_events_total", [("app", app), ("event", analyticsEventNames.label(event, in: app))]).increment()
    }

    /// A request of `app` refused by its rate limits: `cloudlet_rate_limited_total{app}`.
    public func rateLimited(app: String) {
        counter("cloudlet_rate_limited_total", [("app", app)]).increment()
    }

    /// A worker of `app` started again after one ended: `cloudlet_worker_restarts_total{app}`.
    package func workerRestarted(app: String) {
        counter("cloudlet_worker_restarts_total", [("app", app)]).increment()
    }

    /// A hook run of `app` left out of its hook log because the log's buffer was full:
    /// `cloudlet_hook_runs_dropped_total{app}`.
    func hookRunDropped(app: String) {
        counter("cloudlet_hook_runs_dropped_total", [("app", app)]).increment()
    }

    /// `lines` lines (or log records) of `app`'s workers' output dropped over the app's output rate:
    /// `cloudlet_worker_output_dropped_total{app}`.
    package func workerOutputDropped(app: String, lines: Int) {
        counter("cloudlet_worker_output_dropped_total", [("app", app)]).increment(by: Int64(lines))
    }

    /// A scheduled run of `job` (a name the operator's schedule gives) of `app` came due and did not
    /// start: `cloudlet_job_runs_skipped_total{app,job}`.
    package func scheduledJobSkipped(app: String, job: String) {
        counter("cloudlet_job_runs_skipped_total", [("app", app), ("job", job)]).increment()
    }

    /// A connection refused at once for being over a bound (`total` or `address`):
    /// `cloudlet_connections_refused_total{reason}`.
    package func connectionRefused(reason: String) {
        counter("cloudlet_connections_refused_total", [("reason", reason)]).increment()
    }

    /// A request held until its client address's turn came (``AddressPacingHandler``):
    /// `cloudlet_requests_paced_total`.
    package func requestPaced() {
        counter("cloudlet_requests_paced_total", []).increment()
    }

    /// A connection closed for holding the server without using it (`idle`, `head`, `body` or `unread`):
    /// `cloudlet_connections_timed_out_total{reason}`.
    package func connectionTimedOut(reason: String) {
        counter("cloudlet_connections_timed_out_total", [("reason", reason)]).increment()
    }

    /// `app`'s LiveQuery clients connected now: `cloudlet_livequery_connections{app}`.
    package func liveQueryConnections(app: String, count: Int) {
        Gauge(label: "cloudlet_livequery_connections", dimensions: [("app", app)], factory: factory).record(count)
    }

    /// `app`'s LiveQuery subscriptions now: `cloudlet_livequery_subscriptions{app}`.
    package func liveQuerySubscriptions(app: String, count: Int) {
        Gauge(label: "cloudlet_livequery_subscriptions", dimensions: [("app", app)], factory: factory).record(count)
    }

    /// A LiveQuery event (`create`, `enter`, `update`, `leave` or `delete`) queued for a client of
    /// `app`: `cloudlet_livequery_events_total{app,event}`.
    package func liveQueryEventSent(app: String, event: String) {
        counter("cloudlet_livequery_events_total", [("app", app), ("event", event)]).increment()
    }

    /// A LiveQuery connection closed by the server (`connect_timeout`, `unread`, `removed`) or a
    /// request of one refused for a bound (`connections`, `subscriptions`, `messages`):
    /// `cloudlet_livequery_refusals_total{reason}`.
    package func liveQueryRefused(reason: String) {
        counter("cloudlet_livequery_refusals_total", [("reason", reason)]).increment()
    }

    /// What `app`'s executor reports now: `cloudlet_hook_queue_depth{app}` (calls waiting for a
    /// worker) and `cloudlet_app_ready{app}` (1 when every worker is up).
    package func sample(app: String, queueDepth: Int, isReady: Bool) {
        Gauge(label: "cloudlet_hook_queue_depth", dimensions: [("app", app)], factory: factory).record(queueDepth)
        Gauge(label: "cloudlet_app_ready", dimensions: [("app", app)], factory: factory).record(isReady ? 1 : 0)
    }
}

extension CloudletMetrics {
    /// The counter `name` with `dimensions`, made once.
    private func counter(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        handles.counter(MetricHandles.Key(name, dimensions)) { CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory) }
    }
}

/// The counters made so far, by name and label values: making one through the factory checks its
/// name and labels every time, which the request path need not pay for twice. Bounded as the
/// label values are. A request and a hook run, counted and timed each time, find their timer and
/// counter with one lookup by two label values (``TimedEventTable``).
private final class MetricHandles: Sendable {
    struct Key: Hashable {
        package let name: String
        package let values: [String]

        package init(_ name: String, _ dimensions: [(String, String)]) {
            self.name = name
            values = dimensions.map(\.1)
        }
    }

    private let counters = Mutex<[Key: CoreMetrics.Counter]>([:])
    /// Requests, by app and route, counted by status.
    let requests = TimedEventTable<Int>()
    /// Hook runs, by app and hook, counted by outcome.
    let hookRuns = TimedEventTable<HookOutcome>()

    func counter(_ key: Key, make: () -> CoreMetrics.Counter) -> CoreMetrics.Counter {
        madeOnce(key, in: counters, make: make)
    }
}

/// One kind of timed and counted event (a request, a hook run), its handles by two label values.
private final class TimedEventTable<Label: Hashable & Sendable>: Sendable {
    /// Two label values: an app and a route, or an app and a hook.
    private struct Pair: Hashable {
        let first: String
        let second: String
    }

    private let events = Mutex<[Pair: TimedEvents<Label>]>([:])

    /// The handles of the events labelled `first` and `second`; `timer` makes their timer.
    func events(_ first: String, _ second: String, timer: () -> CoreMetrics.Timer) -> TimedEvents<Label> {
        madeOnce(Pair(first: first, second: second), in: events) { TimedEvents(timer: timer()) }
    }
}

/// The handles of one kind of event with the same label values: its timer, and a counter for each
/// value of one more label (a status, an outcome), each made the first time it is asked for.
private final class TimedEvents<Label: Hashable & Sendable>: Sendable {
    private let timer: CoreMetrics.Timer
    private let counters = Mutex<[Label: CoreMetrics.Counter]>([:])

    init(timer: CoreMetrics.Timer) {
        self.timer = timer
    }

    /// Counts one event labelled `label` (its counter made by `counter` the first time) and times it.
    func record(_ label: Label, _ duration: Duration, counter: () -> CoreMetrics.Counter) {
        madeOnce(label, in: counters, make: counter).increment()
        timer.record(duration)
    }
}

/// The handle of `key` in `handles`, made by `make` and kept the first time it is asked for.
private func madeOnce<Key: Hashable & Sendable, Handle: Sendable>(_ key: Key, in handles: borrowing Mutex<[Key: Handle]>, make: () -> Handle) -> Handle {
    if let handle = handles.withLock({ $0[key] }) { return handle }
    let handle = make()
    return handles.withLock { handles in
        if let made = handles[key] { return made }
        handles[key] = handle
        return handle
    }
}

extension CoreMetrics.Timer {
    /// Records `duration`, to the nanosecond.
    fileprivate func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
