import Cloudlet
import CloudletRuntime
import Logging
import Synchronization

/// What one app's workers write (lines on standard output and error, and records through
/// `request.logger`) on its way to the host's log, rate-limited over all the app's workers
/// together: a token bucket of ``Limits/linesPerSecond`` lines and ``Limits/bytesPerSecond`` bytes,
/// each holding one second's worth. What is over is dropped and counted in
/// `cloudlet_worker_output_dropped_total{app}`, and said in one warning per ``summaryInterval``.
/// A hook that prints in a loop so costs the host its reads of the pipe, not a log line per line.
final class WorkerOutputRelay: Sendable {
    /// How much of an app's worker output reaches the log.
    struct Limits: Sendable {
        /// Lines (and log records) a second. Default 200.
        var linesPerSecond = 200
        /// Bytes a second. Default 64 KiB: at least one line cut at its bound, whatever the setting.
        var bytesPerSecond = 64 << 10
    }

    /// How often a warning says how much output was dropped, if any was.
    static let summaryInterval = Duration.seconds(10)

    private struct Bucket {
        var lines: Double
        var bytes: Double
        var refilledAt: ContinuousClock.Instant
        var dropped = (lines: 0, bytes: 0)
        var summarizedAt: ContinuousClock.Instant
    }

    let appId: String
    let limits: Limits
    private let metrics: CloudletMetrics?
    private let logger: Logger
    private let bucket: Mutex<Bucket>

    /// A relay for `appId`'s workers, full at `now`, counting what it drops in `metrics` and saying
    /// it on `logger`.
    init(appId: String, limits: Limits, metrics: CloudletMetrics?, logger: Logger, now: ContinuousClock.Instant = .now) {
        self.appId = appId
        self.limits = Limits(
            linesPerSecond: max(1, limits.linesPerSecond),
            bytesPerSecond: max(limits.bytesPerSecond, LineSplitter.maximumLineBytes + LineSplitter.cutMarker.utf8.count))
        self.metrics = metrics
        self.logger = logger
        bucket = Mutex(
            Bucket(lines: Double(self.limits.linesPerSecond), bytes: Double(self.limits.bytesPerSecond), refilledAt: now, summarizedAt: now))
    }

    /// The lines of `lines` that may go to the log at `now`, in order; the others are dropped.
    func admit(_ lines: [LineSplitter.Line], at now: ContinuousClock.Instant = .now) -> [LineSplitter.Line] {
        let admitted = bucket.withLock { bucket in
            refill(&bucket, at: now)
            return lines.filter { take($0.bytes.count, from: &bucket) }
        }
        if admitted.count < lines.count { metrics?.workerOutputDropped(app: appId, lines: lines.count - admitted.count) }
        return admitted
    }

    /// Whether one record of `bytes` bytes (a hook's log record) may go to the log at `now`.
    func admit(bytes: Int, at now: ContinuousClock.Instant = .now) -> Bool {
        let admitted = bucket.withLock { bucket in
            refill(&bucket, at: now)
            return take(bytes, from: &bucket)
        }
        if !admitted { metrics?.workerOutputDropped(app: appId, lines: 1) }
        return admitted
    }

    /// Says, in one warning, what was dropped since the last one, if anything was and
    /// ``summaryInterval`` has passed since; called at every tick of the pool's supervisor.
    func summarize(at now: ContinuousClock.Instant = .now) {
        let dropped = bucket.withLock { bucket -> (lines: Int, bytes: Int, seconds: Double)? in
            guard bucket.dropped.lines > 0, now - bucket.summarizedAt >= Self.summaryInterval else { return nil }
            defer {
                bucket.dropped = (0, 0)
                bucket.summarizedAt = now
            }
            return (bucket.dropped.lines, bucket.dropped.bytes, (now - bucket.summarizedAt) / .seconds(1))
        }
        guard let dropped else { return }
        logger.warning(
            "dropped worker output over the app's rate",
            metadata: [
                "lines": "\(dropped.lines)", "bytes": "\(dropped.bytes)", "seconds": "\(Int(dropped.seconds.rounded()))",
                "limit": "\(limits.linesPerSecond) lines/s, \(limits.bytesPerSecond) bytes/s",
            ])
    }

    /// Takes a line of `bytes` from `bucket` if it holds enough; else counts it dropped.
    private func take(_ bytes: Int, from bucket: inout Bucket) -> Bool {
        guard bucket.lines >= 1, bucket.bytes >= Double(bytes) else {
            bucket.dropped.lines += 1
            bucket.dropped.bytes += bytes
            return false
        }
        bucket.lines -= 1
        bucket.bytes -= Double(bytes)
        return true
    }

    private func refill(_ bucket: inout Bucket, at now: ContinuousClock.Instant) {
        let seconds = max(0, (now - bucket.refilledAt) / .seconds(1))
        bucket.refilledAt = max(bucket.refilledAt, now)
        bucket.lines = min(Double(limits.linesPerSecond), bucket.lines + seconds * Double(limits.linesPerSecond))
        bucket.bytes = min(Double(limits.bytesPerSecond), bucket.bytes + seconds * Double(limits.bytesPerSecond))
    }
}
