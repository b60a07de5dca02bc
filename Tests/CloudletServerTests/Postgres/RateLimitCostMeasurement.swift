import CloudletRuntime
import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import CloudletPostgres

#if canImport(Glibc)
import Glibc
#endif

/// What a charge costs on the shared store against the in-memory one, in one run: not a test (it
/// asserts nothing) but a measurement, run only when `CLOUDLET_MEASURE_RATE_LIMITS` is set, as
/// `Benchmarks/Scripts/rate-limit-cost.sh` does. Each charge is the app quota's stage of a request:
/// the client address's share and the app's quota, two keys, over 1,000 addresses.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CLOUDLET_MEASURE_RATE_LIMITS"] != nil, "a measurement, run by rate-limit-cost.sh"))
struct RateLimitCostMeasurement {
    private static let charges = Int(ProcessInfo.processInfo.environment["CLOUDLET_MEASURE_RATE_LIMITS"] ?? "") ?? 20_000
    private static let quota = RateLimitQuota(perSecond: 1_000_000, burst: 1_000_000)
    private static let share = RateLimitQuota(perSecond: 100_000, burst: 100_000)

    @Test func chargesOnEachStore() async throws {
        print(try await Self.measure("in-memory", InMemoryRateLimitStore(), tasks: 1, from: 0))
        try await TemporaryPostgres.with { database, schema in
            let shared = try await PostgresRateLimitStore(database, schema: schema, nodes: 3)
            let server = try await ServerCPU(database)
            // `SELECT 1` in the store's place: one round trip that does nothing, the floor of any charge.
            let roundTrip = RoundTrip(database: database)
            let runs = [("SELECT 1", roundTrip as any RateLimitStore, 1), ("postgres", shared, 1), ("postgres", shared, 4)]
            for (run, (name, store, tasks)) in runs.enumerated() {
                let before = server.seconds()
                // Each run's times after the one before's (a charge a millisecond), which charged the same keys.
                let line = try await Self.measure("\(name), \(tasks) task(s)", store, tasks: tasks, from: Double(run * Self.charges) / 1000)
                print(line + String(format: ", %.2f µs of the server's CPU per charge", (server.seconds() - before) / Double(Self.charges) * 1e6))
            }
        }
    }

    /// Runs ``charges`` charges in `tasks` tasks at once; answers the wall and CPU time of each.
    private static func measure(_ name: String, _ store: some RateLimitStore, tasks: Int, from offset: Double) async throws -> String {
        let start = Date(timeIntervalSince1970: 1_795_000_000 + offset)
        let each = charges / tasks
        let (cpu, clock) = (processCPU(), ContinuousClock.now)
        // Numbered as they are made, so that the times of the tasks' charges go up together.
        let numbers = Counter()
        let admitted = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var admitted = 0
                    for _ in 0..<each {
                        let number = numbers.next()
                        let charges = [
                            RateLimitCharge(key: "address|ip:198.51.\(number % 1000 / 250).\(number % 250)", quota: share),
                            RateLimitCharge(key: "app", quota: quota),
                        ]
                        if await store.charge(charges, now: start + Double(number) / 1000).allSatisfy(\.allowed) { admitted += 1 }
                    }
                    return admitted
                }
            }
            return await group.reduce(0, +)
        }
        let wall = (ContinuousClock.now - clock) / (tasks * each)
        let usedCPU = (processCPU() - cpu) / Double(tasks * each)
        return String(
            format: "%@: %d charges (%d admitted), %.2f µs wall per charge, %.2f µs of this process's CPU per charge",
            name, tasks * each, admitted, wall.seconds * 1e6, usedCPU * 1e6)
    }

    /// Numbers handed out in order.
    private final class Counter: Sendable {
        private let last = Mutex(-1)

        func next() -> Int { last.withLock { $0 += 1; return $0 } }
    }

    /// A store that only makes a round trip to the database, and admits everything.
    private struct RoundTrip: RateLimitStore {
        let database: CloudletPostgres.PostgresDatabase

        func charge(_ charges: [RateLimitCharge], now: Date) async -> [RateLimitState] {
            _ = try? await database.execute("SELECT 1")
            return charges.map { RateLimitState($0.quota, wait: 0) }
        }
    }

    /// The CPU time of the tests' PostgreSQL server: its postmaster's (with its children that
    /// have ended) and its running children's, from `/proc`.
    private struct ServerCPU {
        let postmaster: Int

        init(_ database: CloudletPostgres.PostgresDatabase) async throws {
            var backend = 0
            for try await pid in try await database.client.query("SELECT pg_backend_pid()", logger: database.logger).decode(Int.self) { backend = pid }
            postmaster = Self.stat(backend)?.parent ?? 0
        }

        func seconds() -> Double {
            let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int.init)
            let ticks = pids.compactMap(Self.stat).filter { $0.parent == postmaster }.reduce(0) { $0 + $1.ticks }
            return Double(ticks + (Self.stat(postmaster)?.ticksWithEnded ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// A process's parent and CPU ticks (user and system; then with its ended children's).
        private static func stat(_ pid: Int) -> (parent: Int, ticks: Int, ticksWithEnded: Int)? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
            // After the name: state, ppid, …, utime (14th field), stime, cutime, cstime.
            let fields = text[text.index(after: close)...].split(separator: " ").compactMap { Int($0) }
            guard fields.count > 14 else { return nil }
            let ticks = fields[10] + fields[11]
            return (fields[0], ticks, ticks + fields[12] + fields[13])
        }
    }

    /// This process's user and system CPU time so far, in seconds.
    private static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let times = [usage.ru_utime, usage.ru_stime]
        return times.reduce(0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
    }
}
