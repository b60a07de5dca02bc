import Cloudlet
import CloudletServer
import Foundation
import Logging

/// The two measurements, each run against one executor.
enum Measurements {
    /// Latencies of `calls` sequential no-op `beforeSave` calls straight on `executor`, sorted.
    static func beforeSaveLatencies(_ executor: any HookExecutor, calls: Int) async throws -> [Duration] {
        let clock = SystemClock()
        let object = ParseObject(className: "Noop", fields: ["title": "hello", "count": 3])
        var latencies: [Duration] = []
        latencies.reserveCapacity(calls)
        for index in 0..<calls {
            let context = HookContext(
                appId: "bench", requestId: "r\(index)", user: nil, isMaster: true, installationId: nil,
                deadline: clock.now.addingTimeInterval(3), eventId: nil, logger: Logger(label: "bench"), store: UnusedStore(),
                clock: clock)
            let start = ContinuousClock.now
            _ = try await executor.run(.beforeSave, "Noop", input: HookPayload(.object(object.json)), original: nil, context: context)
            latencies.append(ContinuousClock.now - start)
        }
        return latencies.sorted()
    }

    /// Saves per second of `Pair` objects (a `beforeSave` and an `afterSave` each) through a whole app
    /// runtime with SQLite storage, from `concurrency` callers for `seconds`.
    static func pairedSavesPerSecond(_ executor: any HookExecutor, concurrency: Int, seconds: Double) async throws -> Double {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-isolation-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let runtime = AppRuntime(
            appId: "bench", stores: AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("bench.sqlite").path)),
            executor: executor, clock: SystemClock(), logger: logger, hookLogger: logger)
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let saves = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var count = 0
                    while ContinuousClock.now < end {
                        _ = try await runtime.writes.create("Pair", body: ["title": "hello"], caller: Caller(isMaster: true, requestId: "bench"))
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(saves) / seconds
    }
}

extension [Duration] {
    /// The value at quantile `q` of a sorted array, in microseconds.
    func microseconds(at q: Double) -> Double {
        let value = self[Swift.min(count - 1, Int(Double(count) * q))]
        return Double(value.components.seconds) * 1e6 + Double(value.components.attoseconds) / 1e12
    }
}
