import Cloudlet
import CloudletTesting
import CloudletWire
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// A worker's loop, run over an in-memory wire with the test as its host: no process, no socket.
@Suite struct WorkerSessionTests {
    /// A session serving `registry`, and the host's end of its connection.
    struct Host {
        let wire: InMemoryWire
        var arrivals: AsyncStream<WireMessage>.Iterator
        let closed: AsyncStream<Void>

        init(serving registry: HookRegistry, workerFrameBytes: Int = WireFraming.maximumFrameBytes, eventLoop: (any EventLoop)? = nil) {
            let (host, worker) = InMemoryWire.pair(maximumFrameBytes: (WireFraming.maximumFrameBytes, workerFrameBytes))
            let (arrivals, arrived) = AsyncStream.makeStream(of: WireMessage.self)
            let (closed, closing) = AsyncStream.makeStream(of: Void.self)
            host.open(WireReceiver(message: { arrived.yield($0) }, oversized: { _ in }, closed: { closing.yield(); closing.finish() }))
            let session = WorkerSession(registry: registry, clock: ManualClock(), eventLoop: eventLoop)
            worker.open(session.receiver)
            session.start(on: worker)
            wire = host
            self.arrivals = arrivals.makeAsyncIterator()
            self.closed = closed
        }

        mutating func next() async -> WireMessage? { await arrivals.next() }

        /// Asks for function `name` with `params` as invocation `id`.
        func invoke(_ name: String, id: UInt64, _ params: [String: ParseValue] = [:]) {
            wire.send(
                .invoke(
                    WireInvocation(
                        id: id, deadlineMilliseconds: 1_767_225_660_000, kind: 5, name: name, appId: "test", requestId: "r\(id)", userId: nil,
                        isMaster: false, installationId: nil, eventId: nil, input: ParseValue.object(params).jsonBuffer, original: nil)))
        }
    }

    static func registry() -> HookRegistry {
        var hooks = HookRegistry()
        hooks.function("echo") { request in request.params["say"] ?? .null }
        hooks.function("repeat") { request in .string(String(repeating: "x", count: request.params["count"]?.intValue ?? 0)) }
        hooks.function("count") { request in .number(Double(try await request.store.count(ParseQuery("Posts")))) }
        hooks.function("log") { request in
            request.logger.warning("from the hook", metadata: ["n": "1"])
            return nil
        }
        hooks.function("hang", timeLimit: .seconds(60)) { _ in
            try await Task.sleep(for: .seconds(60))
            return nil
        }
        return hooks
    }

    @Test func theWorkerAnnouncesItsHooksThenAnswersEachInvocationByItsId() async throws {
        var host = Host(serving: Self.registry())
        guard case .hello(let hello) = await host.next() else { Issue.record("no hello first"); return }
        #expect(Set(hello.hooks.map(\.name)) == ["echo", "repeat", "count", "log", "hang"])
        host.invoke("echo", id: 7, ["say": "hi"])
        #expect(await host.next() == .result(id: 7, .success(json: ParseValue.string("hi").jsonBuffer)))
        host.invoke("nothing", id: 8)
        guard case .result(8, .refused) = await host.next() else { Issue.record("an unknown function is refused"); return }
        host.wire.send(.ping(id: 9))
        #expect(await host.next() == .pong(id: 9))
    }

    @Test func aQuickHookRunsOnTheConnectionsEventLoopOnceARunShowedItQuickAndAComputingOneNever() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        var hooks = HookRegistry()
        hooks.function("where") { _ in .bool(loop.inEventLoop) }
        hooks.function("compute") { _ in
            let end = ContinuousClock.now + .milliseconds(20)
            while ContinuousClock.now < end {}
            return .bool(loop.inEventLoop)
        }
        var host = Host(serving: hooks, eventLoop: loop)
        _ = await host.next()
        func runsOnLoop(_ name: String, id: UInt64) async -> Bool {
            host.invoke(name, id: id)
            guard case .result(id, .success(let json)) = await host.next() else { return false }
            return (try? ParseValue(json: json)) == .bool(true)
        }
        #expect(await !runsOnLoop("where", id: 1), "a hook not yet seen runs on the pool")
        #expect(await runsOnLoop("where", id: 2), "a hook whose last run was quick runs on the loop")
        #expect(await !runsOnLoop("compute", id: 3))
        #expect(await !runsOnLoop("compute", id: 4), "a hook that held its thread for long stays on the pool")
        try await group.shutdownGracefully()
    }

    @Test func aStoreCallGoesToTheHostAndItsReplyReachesTheHook() async throws {
        var host = Host(serving: Self.registry())
        _ = await host.next()
        host.invoke("count", id: 1)
        guard case .storeCall(let call) = await host.next() else { Issue.record("no store call"); return }
        #expect(call.invocationId == 1 && call.operation == .count && !call.asMaster)
        host.wire.send(.storeReply(id: call.id, .success(json: ParseValue.number(42).jsonBuffer)))
        #expect(await host.next() == .result(id: 1, .success(json: ParseValue.number(42).jsonBuffer)))
    }

    @Test func aHooksLogLineTravelsAsARecordOfItsInvocation() async throws {
        var host = Host(serving: Self.registry())
        _ = await host.next()
        host.invoke("log", id: 3)
        guard case .log(let record) = await host.next() else { Issue.record("no log record"); return }
        #expect(record.invocationId == 3 && record.message == "from the hook")
        #expect(try ParseValue(json: record.metadata) == ["n": "1"])
        #expect(await host.next() == .result(id: 3, .success(json: ParseValue.null.jsonBuffer)))
    }

    @Test func aCancelEndsItsInvocationAndLeavesTheOthers() async throws {
        var host = Host(serving: Self.registry())
        _ = await host.next()
        host.invoke("hang", id: 1)
        host.invoke("echo", id: 2, ["say": "still here"])
        #expect(await host.next() == .result(id: 2, .success(json: ParseValue.string("still here").jsonBuffer)))
        host.wire.send(.cancel(id: 1))
        guard case .result(1, let outcome) = await host.next() else { Issue.record("the cancelled call did not end"); return }
        #expect(outcome != .success(json: ParseValue.null.jsonBuffer))
    }

    @Test func anInputOrAResultOverTheFrameBoundFailsOnlyItsCall() async throws {
        var host = Host(serving: Self.registry(), workerFrameBytes: 4_096)
        _ = await host.next()
        host.invoke("echo", id: 1, ["say": .string(String(repeating: "x", count: 5_000))])
        #expect(await host.next() == .result(id: 1, .refused(code: 141, message: "hook input too large")))
        host.invoke("repeat", id: 2, ["count": 5_000])
        #expect(await host.next() == .result(id: 2, .refused(code: 141, message: "hook result too large")))
        host.invoke("repeat", id: 3, ["count": 3_000])
        #expect(await host.next() == .result(id: 3, .success(json: ParseValue.string(String(repeating: "x", count: 3_000)).jsonBuffer)))
        #expect(!host.wire.isClosed)
    }

    @Test func aMessageOnlyAWorkerSendsClosesTheConnection() async throws {
        var host = Host(serving: Self.registry())
        _ = await host.next()
        host.wire.send(.pong(id: 1))
        var closed = host.closed.makeAsyncIterator()
        await closed.next()
        #expect(host.wire.isClosed)
    }
}
