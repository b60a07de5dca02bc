import Foundation
import Synchronization

/// Where an app's hook log is stored: the app's own database, so that one app's log is never
/// readable through another's.
public protocol HookRunStorage: Sendable {
    /// Stores `runs` (their ``HookRun/sequence`` is assigned here) and removes all but the newest
    /// `retention` runs.
    func appendHookRuns(_ runs: [HookRun], retention: Int) async throws

    /// The runs `query` selects, oldest first.
    func hookRuns(_ query: HookRunQuery) async throws -> [HookRun]
}

/// One app's hook log on its way to storage: runs are buffered as they end, off the request's
/// path, and written in batches by ``HookRunWriter``. A full buffer drops new runs and counts them
/// (`cloudlet_hook_runs_dropped_total`) rather than slow a request down.
public final class HookRunLog: Sendable {
    /// The app whose runs these are.
    public let appId: String
    /// Where the runs are stored.
    public let storage: any HookRunStorage
    /// How many runs storage keeps: the newest.
    public let retention: Int
    /// How many runs may wait for the next write.
    public let bufferCapacity: Int
    /// The most runs a store writes in one transaction, so that the writes waiting for it are held
    /// up briefly.
    public static let runsPerTransaction = 256
    private let metrics: CloudletMetrics
    private let buffer = Mutex<[HookRun]>([])
    /// Signalled when the buffer gets its first run since the last write.
    private let buffered: WakeSignal?

    /// A log for `appId` stored in `storage`, keeping the newest `retention` runs; `buffered` is
    /// signalled when a run waits to be written.
    public init(
        appId: String, storage: any HookRunStorage, retention: Int = 10_000, bufferCapacity: Int = 4096, metrics: CloudletMetrics,
        buffered: WakeSignal? = nil
    ) {
        self.buffered = buffered
        self.appId = appId
        self.storage = storage
        self.retention = retention
        self.bufferCapacity = bufferCapacity
        self.metrics = metrics
    }

    /// Buffers `run` for the next write, or drops it if the buffer is full.
    public func record(_ run: HookRun) {
        let (kept, wasEmpty) = buffer.withLock { buffer in
            guard buffer.count < bufferCapacity else { return (false, false) }
            buffer.append(run)
            return (true, buffer.count == 1)
        }
        if !kept { metrics.hookRunDropped(app: appId) }
        if wasEmpty { buffered?.signal() }
    }

    /// The stored runs `query` selects, oldest first, after writing the buffered ones.
    public func runs(_ query: HookRunQuery) async throws -> [HookRun] {
        try await flush()
        return try await storage.hookRuns(query)
    }

    /// Writes the buffered runs to storage, pruning it to the retention cap.
    public func flush() async throws {
        let runs = buffer.withLock { buffer in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        guard !runs.isEmpty else { return }
        try await storage.appendHookRuns(runs, retention: retention)
    }
}
