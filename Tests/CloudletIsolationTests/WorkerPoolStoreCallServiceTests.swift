import Cloudlet
import CloudletWire
import Foundation
import ServiceLifecycle
import Synchronization
import Testing

@testable import CloudletIsolation
@testable import CloudletTesting

/// The store calls of a pool's workers are child tasks of the pool's service: a stop waits for (or
/// cancels) those in flight, and one that waits holds up no other.
@Suite struct WorkerPoolStoreCallServiceTests {
    /// A store whose one read waits until ``open()`` (or until its task is cancelled), and which
    /// notes in `events` when it has answered; a find opens it.
    final class GatedStore: HookStore {
        let events = Mutex<[String]>([])
        let began = AsyncStream.makeStream(of: Void.self)
        private let gate = AsyncStream.makeStream(of: Void.self)

        /// Lets the waiting read answer.
        func open() { gate.continuation.finish() }

        func get(_ className: String, id: String) async throws -> ParseObject? {
            began.continuation.yield()
            for await _ in gate.stream {}
            events.withLock { $0.append(Task.isCancelled ? "store call cancelled and answered" : "store call answered") }
            return nil
        }

        func find(_ query: ParseQuery) async throws -> [ParseObject] {
            open()
            return []
        }

        func count(_ query: ParseQuery) async throws -> Int { throw ParseError.failed("not used") }
        func save(_ object: ParseObject) async throws -> ParseObject { throw ParseError.failed("not used") }
        func delete(_ className: String, id: String) async throws { throw ParseError.failed("not used") }
        func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue { throw ParseError.failed("not used") }
        var asMaster: any HookStore { self }
    }

    /// An in-memory pool whose hook `lookup` reads through its context's store, and `both` reads
    /// and, at the same time, finds.
    static func pool(clock: ManualClock, logs: CapturedLogs) async throws -> WorkerPool {
        var hooks = HookRegistry()
        hooks.function("lookup") { request in try await request.context.store.get("Thing", id: "a") == nil ? "none" : "some" }
        hooks.function("both") { request in
            async let read = request.context.store.get("Thing", id: "a")
            async let found = request.context.store.find(ParseQuery("Thing"))
            _ = try await (read, found)
            return "both answered"
        }
        return try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: InMemoryWire.connector(serving: hooks, clock: clock), logger: logs.logger(label: "cloudlet.workers"),
            clock: clock)
    }

    /// A call of `name` on `pool` as master, whose hook's store is `store`.
    static func invoke(_ name: String, on pool: WorkerPool, store: GatedStore, clock: ManualClock, logs: CapturedLogs) async throws -> ParseValue {
        let context = HookContext(
            appId: "test", requestId: name, user: nil, isMaster: true, installationId: nil, deadline: clock.now.addingTimeInterval(60),
            eventId: nil, logger: logs.logger(label: "cloudlet.hooks"), store: store, clock: clock)
        return try await pool.invoke(.function, name, input: ParseValue.object([:]).jsonBuffer, original: nil, context: context)
    }

    /// Runs the service group of an in-memory pool whose hook `lookup` reads through a ``GatedStore``,
    /// calls `lookup`, and once the read is in flight on the host hands `stop` the group and the task
    /// that runs it; then opens the gate (once the group has returned, or after a bounded while if
    /// it has not) and returns what happened, in order.
    static func storeCallInFlight(
        whenStopping stop: @escaping @Sendable (ServiceGroup, Task<Void, Never>) async -> Void
    ) async throws -> [String] {
        let clock = ManualClock()
        let logs = CapturedLogs()
        let pool = try await Self.pool(clock: clock, logs: logs)
        let store = GatedStore()
        let services = ServiceGroup(services: [pool], logger: logs.logger(label: "cloudlet.services"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            let running = Task {
                try? await services.run()
                store.events.withLock { $0.append("service returned") }
            }
            group.addTask {
                _ = try? await Self.invoke("lookup", on: pool, store: store, clock: clock, logs: logs)
            }
            var began = store.began.stream.makeAsyncIterator()
            await began.next()
            await stop(services, running)
            // A service that did not own the call returns as soon as its worker has ended.
            let giveUp = ContinuousClock.now + .milliseconds(500)
            while store.events.withLock({ $0.isEmpty }), ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
            store.open()
            await running.value
            try await group.waitForAll()
        }
        return store.events.withLock { $0 }
    }

    @Test func aGracefulShutdownWaitsForTheStoreCallsInFlight() async throws {
        let events = try await Self.storeCallInFlight { services, _ in await services.triggerGracefulShutdown() }
        #expect(events == ["store call answered", "service returned"])
    }

    @Test func cancellingThePoolsServiceCancelsTheStoreCallsInFlightAndAnswersThemFirst() async throws {
        let events = try await Self.storeCallInFlight { _, running in running.cancel() }
        #expect(events == ["store call cancelled and answered", "service returned"])
    }

    @Test func aStoreCallThatWaitsHoldsUpNoOtherCallOfItsHook() async throws {
        let clock = ManualClock()
        let logs = CapturedLogs()
        let pool = try await Self.pool(clock: clock, logs: logs)
        let store = GatedStore()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            let answer = Task { try await Self.invoke("both", on: pool, store: store, clock: clock, logs: logs) }
            // The read waits for the find: served one after the other, they would wait for ever.
            let giveUp = ContinuousClock.now + .seconds(10)
            while store.events.withLock({ $0.isEmpty }), ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
            #expect(store.events.withLock { $0 } == ["store call answered"])
            store.open()
            #expect(try await answer.value == "both answered")
        }
    }
}
