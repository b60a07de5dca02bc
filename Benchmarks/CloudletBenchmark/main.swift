import CloudletCLI
import Foundation
import LoadSupport
import Logging
import NIOCore
import NIOPosix

// Measures saves per second and latency of `POST /parse/classes/X` on four servers in this
// process (bare Hummingbird + GRDB, Cloudlet without hooks, Cloudlet with a beforeSave + afterSave
// pair in-process and in worker processes), at each number of connections, then prints how
// Cloudlet compares with the bare baseline. This executable is also its own worker: the pool
// starts it as `<this> worker`.

if CommandLine.arguments.dropFirst().first == "worker" {
    await CloudletCommand<BenchmarkHooks>.runCommandLine()
    exit(0)
}

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n\(BenchmarkOptions.usage)\n".utf8))
    exit(2)
}

var logger = Logger(label: "cloudlet.benchmark")
logger.logLevel = .error
let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
var report = BenchmarkReport()
report.printHeader(
    options: options, arguments: CommandLine.arguments, bodyBytes: SaveRequest.make(host: "127.0.0.1", port: 0).bodyBytes)

for scenario in options.scenarios {
    let (server, stop) = try await scenario.start(logger: logger)
    for connections in options.connections {
        let generator = LoadGenerator(
            host: "127.0.0.1", port: server.port, connections: connections, warmup: options.warmup,
            seconds: options.seconds)
        let result = try await generator.run(SaveRequest.make(host: "127.0.0.1", port: server.port), on: clientGroup)
        report.add(.init(scenario: scenario, connections: connections, result: result, seconds: options.seconds))
    }
    try await stop()
}
report.printComparisons()
try await clientGroup.shutdownGracefully()
