import Cloudlet
import CloudletWire
import Foundation
import ServiceLifecycle
import Synchronization
import Testing

@testable import CloudletIsolation
@testable import CloudletTesting

/// What becomes of a store call a hook has in flight when its pool's service stops: the call is
/// one of the service's child tasks, so the service returns only once it has been answered.
@Suite struct WorkerPoolShutdownTests {
    /// A store whose one read waits until ``open()`` (or until its task is cancelled), and which
    /// notes in `events` when it has answered.
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

        func find(_ query: ParseQuery) async throws -> [ParseObject] { throw ParseError.failed("not used") }
        func count(_ query: ParseQuery) async throws -> Int { throw ParseError.failed("not used") }
        func save(_ object: ParseObject) async throws -> ParseObject { throw ParseError.failed("not used") }
        func delete(_ className: String, id: String) async throws { throw ParseError.failed("not used") }
        func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue { throw ParseError.failed("not used") }
        var asMaster: any HookStore { self }
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
        var hooks = HookRegistry()
        hooks.function("lookup") { request in try await request.context.store.get("Thing", id: "a") == nil ? "none" : "some" }
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: "test", executablePath: "/nonexistent", workerCount: 1),
            connectingWorkersWith: InMemoryWire.connector(serving: hooks, clock: clock), logger: logs.logger(label: "cloudlet.workers"),
            clock: clock)
        let store = GatedStore()
        let context = HookContext(
            appId: "test", requestId: "shutdown", user: nil, isMaster: true, installationId: nil,
            deadline: clock.now.addingTimeInterval(60), eventId: nil, logger: logs.logger(label: "cloudlet.hooks"), store: store,
            clock: clock)
        let services = ServiceGroup(services: [pool], logger: logs.logger(label: "cloudlet.services"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            let running = Task {
                try? await services.run()
                store.events.withLock { $0.append("service returned") }
            }
            group.addTask {
                _ = try? await pool.invoke(.function, "lookup", input: ParseValue.object([:]).jsonBuffer, original: nil, context: context)
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
}
