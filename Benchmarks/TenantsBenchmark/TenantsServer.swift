import Cloudlet
import CloudletServer
import Foundation
import Hummingbird
import LoadSupport
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// One Cloudlet server hosting two apps: `flood`, rate-limited, whose hooks run in worker
/// processes started from this executable; and `steady`, with no limit, whose saves are measured.
enum TenantsServer {
    static let flood = "flood"
    static let steady = "steady"
    static func clientKey(_ app: String) -> String { "ck-" + app }

    /// Starts the server with `flood` limited to `quota`; what its workers print goes to `hookLogger`.
    static func start(quota: RateLimitQuota, logger: Logger, hookLogger: Logger) async throws -> (RunningServer, WorkerPool) {
        let pool = try await WorkerPool.launch(
            WorkerPoolConfiguration(appId: flood, executablePath: Bundle.main.executablePath ?? CommandLine.arguments[0]), logger: logger,
            hookLogger: hookLogger)
        let server = try await RunningServer.start { directory, onRunning in
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory)
            // Every client of the benchmark is on one address: requests are not paced by address.
            configuration.connections.requestsPerAddress = nil
            let application = try await CloudletApplication(
                configuration: configuration,
                apps: [
                    AppDefinition(
                        id: flood, executor: ProcessHookExecutor(pool: pool), clientKey: clientKey(flood), masterKey: "mk-flood",
                        services: [pool],
                        // The flood comes from one address: the whole quota is its to spend.
                        rateLimits: RateLimitPolicy(quota: quota, addressShare: 1)),
                    AppDefinition(
                        id: steady, executor: InProcessHookExecutor(registry: HookRegistry()), clientKey: clientKey(steady),
                        masterKey: "mk-steady"),
                ],
                logger: logger)
            return application.application(onServerRunning: onRunning)
        }
        return (server, pool)
    }

    /// Saves of about 200 bytes to `app`'s class `X`.
    static func saves(_ app: String, port: Int) -> LoadRequest {
        LoadRequest.save(host: "127.0.0.1", port: port, appId: app, clientKey: clientKey(app), className: "X")
    }

    /// Calls of the flood app's function `name` (`spin`, or one of ``TenantHooks/faults``).
    static func calls(_ name: String, port: Int) -> LoadRequest {
        LoadRequest(
            method: .POST, uri: "/parse/functions/\(name)", host: "127.0.0.1", port: port, appId: flood, clientKey: clientKey(flood),
            bodies: ["{}"])
    }
}

/// The control for the flood: a server that does no work for it, on a thread of its own. It answers
/// every request at once with Parse's 429, as Cloudlet answers most of the flood. The same flood
/// aimed at it costs the steady app only what the machine itself pays for the flood — the load
/// generator's work and the kernel's sockets, on the same two cores — which no server can spare it.
enum IdleFloodServer {
    /// Starts it on 127.0.0.1, on a port the system picks, on `thread` (a group of one).
    static func start(on thread: MultiThreadedEventLoopGroup, logger: Logger) async throws -> RunningServer {
        try await RunningServer.start { _, onRunning in
            let router = Router()
            router.post("/parse/classes/:className") { _, _ in
                Response(
                    status: .tooManyRequests, headers: [.contentType: "application/json", .retryAfter: "1"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"code":155,"error":"too many requests"}"#)))
            }
            return Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: onRunning, eventLoopGroupProvider: .shared(thread),
                logger: logger)
        }
    }
}
