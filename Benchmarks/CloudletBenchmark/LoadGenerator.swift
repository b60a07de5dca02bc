import NIOCore
import NIOHTTP1
import NIOPosix

/// Sends saves to a server over `connections` keep-alive HTTP/1.1 connections, one request in
/// flight on each, for a warm-up then a measured window; answers what the window recorded.
struct LoadGenerator {
    let host: String
    let port: Int
    let connections: Int
    /// Seconds driven before measuring.
    let warmup: Double
    /// Seconds measured.
    let seconds: Double

    /// Runs the load on `group`'s event loops and returns the connections' results merged.
    func run(on group: any EventLoopGroup) async throws -> LoadResult {
        let request = SaveRequest(host: host, port: port)
        let start = NIODeadline.now() + Self.timeAmount(warmup)
        let window = LoadConnectionHandler.Window(start: start, end: start + Self.timeAmount(seconds))
        // Room for 10,000 saves per second on each connection, more than one connection reaches here.
        let capacity = Int(seconds * 10_000)
        var outcomes: [EventLoopFuture<LoadResult>] = []
        for _ in 0..<connections {
            let done = group.next().makePromise(of: LoadResult.self)
            let bootstrap = ClientBootstrap(group: group)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(
                            LoadConnectionHandler(request: request, window: window, capacity: capacity, done: done))
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
        return LoadResult(merging: results)
    }

    private static func timeAmount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1e9))
    }
}
