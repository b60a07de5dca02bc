import NIOCore
import NIOHTTP1
import NIOPosix

/// Sends a request to a server over `connections` keep-alive HTTP/1.1 connections, one request in
/// flight on each (back to back, or paced to a total rate), for a warm-up then a measured window;
/// answers what the window recorded. Paced connections start a fraction of the pace apart, so that
/// the rate arrives evenly rather than as one burst from every connection at once.
public struct LoadGenerator: Sendable {
    let host: String
    let port: Int
    let connections: Int
    /// Seconds driven before measuring.
    let warmup: Double
    /// Seconds measured.
    let seconds: Double
    /// Requests a second over all connections together; nil sends back to back.
    let rate: Double?
    /// The server's process, when it runs in one of its own: its CPU time and its descendants' (its
    /// workers) is read at the window's start and end.
    let serverProcess: Int32?

    public init(
        host: String, port: Int, connections: Int, warmup: Double, seconds: Double, rate: Double? = nil, serverProcess: Int32? = nil
    ) {
        self.host = host
        self.port = port
        self.connections = connections
        self.warmup = warmup
        self.seconds = seconds
        self.rate = rate
        self.serverProcess = serverProcess
    }

    /// Runs `request` on `group`'s event loops and returns the connections' results merged.
    public func run(_ request: LoadRequest, on group: any EventLoopGroup) async throws -> LoadResult {
        let start = NIODeadline.now() + Self.timeAmount(warmup)
        let window = LoadConnectionHandler.Window(start: start, end: start + Self.timeAmount(seconds))
        let machine = Self.machineCPU(at: window.start, on: group.next())
        let machineAtEnd = Self.machineCPU(at: window.end, on: group.next())
        let server = serverProcess.map { pid in Self.processCPU(of: pid, at: window.start, on: group.next()) }
        let serverAtEnd = serverProcess.map { pid in Self.processCPU(of: pid, at: window.end, on: group.next()) }
        let pace = rate.map { Self.timeAmount(Double(connections) / $0) }
        // Room for 10,000 answers per second on each connection, more than one connection reaches here.
        let capacity = Int(seconds * 10_000)
        var outcomes: [EventLoopFuture<LoadResult>] = []
        let firstSend = NIODeadline.now()
        for index in 0..<connections {
            let stagger = TimeAmount.nanoseconds((pace?.nanoseconds ?? 0) * Int64(index) / Int64(connections))
            let done = group.next().makePromise(of: LoadResult.self)
            let bootstrap = ClientBootstrap(group: group)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            LoadConnectionHandler(
                                request: request, window: window, pace: pace, firstSend: firstSend + stagger, capacity: capacity,
                                done: done))
                    }
                }
            do {
                _ = try await bootstrap.connect(host: host, port: port).get()
            } catch {
                done.fail(error)
                throw error
            }
            outcomes.append(done.futureResult)
        }
        var results: [LoadResult] = []
        for outcome in outcomes { results.append(try await outcome.get()) }
        var merged = LoadResult(merging: results)
        merged.machine = (try await machine.get(), try await machineAtEnd.get())
        if let server, let serverAtEnd { merged.server = (try await server.get(), try await serverAtEnd.get()) }
        return merged
    }

    /// The CPU seconds process `pid` and its descendants have used, read at `deadline`.
    private static func processCPU(of pid: Int32, at deadline: NIODeadline, on loop: any EventLoop) -> EventLoopFuture<Double> {
        loop.scheduleTask(deadline: deadline) { ProcessCPU.treeSeconds(of: pid) }.futureResult
    }

    /// The machine's CPU counts read at `deadline`.
    private static func machineCPU(at deadline: NIODeadline, on loop: any EventLoop) -> EventLoopFuture<MachineCPU> {
        loop.scheduleTask(deadline: deadline) { MachineCPU.now() }.futureResult
    }

    private static func timeAmount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1e9))
    }
}
