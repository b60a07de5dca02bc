import CloudletRuntime
import Prometheus

extension CloudletMetrics {
    /// Metrics kept in `registry` (a new one by default), served as its Prometheus text. Durations
    /// go into histograms whose buckets run from 1 ms to 30 s.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000]
            .map { .microseconds(Int64($0 * 1000)) }
        self.init(factory: factory, render: { registry.emitToBuffer() })
    }
}
