import CloudletCLI
import CloudletServer
import Foundation
import LoadSupport
import Logging
import NIOCore
import NIOPosix

// Measures saves per second, latency and the CPU a save costs when the same object is posted to
// five servers, each in a process of its own (bare Hummingbird + GRDB, PocketBase with a
// JavaScript hook, Cloudlet without hooks, Cloudlet with a beforeSave + afterSave pair in-process and
// in worker processes), at each number of connections, then prints each figure against the bare
// baseline's and PocketBase's, and the hook path's targets. This executable is also each Cloudlet and
// bare server (`<this> serve <scenario>`) and the workers' executable (`<this> worker`).

if CommandLine.arguments.dropFirst().first == "worker" {
    await CloudletCommand<BenchmarkHooks>.runCommandLine()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "serve" {
    let option = CommandLine.arguments.dropFirst(2).first
    guard let scenario = BenchmarkScenario.allCases.first(where: { $0.option == option }) else {
        FileHandle.standardError.write(Data("serve takes a scenario, not \(option ?? "nothing")\n".utf8))
        exit(2)
    }
    // `LOG_LEVEL=info` logs as `cloudlet serve` does by default (a line per request, to standard
    // error); the benchmark's servers log errors only.
    let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
    StructuredLogHandler.bootstrap(format: .logfmt, level: level)
    var logger = Logger(label: "cloudlet.benchmark")
    logger.logLevel = level
    let (server, stop) = try await scenario.start(logger: logger)
    FileHandle.standardOutput.write(Data("port \(server.port)\n".utf8))
    await ServerProcess.standardInputClosed()
    try await stop()
    exit(0)
}

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n\(BenchmarkOptions.usage)\n".utf8))
    exit(2)
}

let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let pocketBase = PocketBaseServer.binary(given: options.pocketBase)
var report = BenchmarkReport()
report.printHeader(options: options, arguments: CommandLine.arguments, bodyBytes: SaveRequest.body.utf8.count)
if options.scenarios.contains(.pocketBase) {
    if let binary = pocketBase.path {
        let version = (try? PocketBaseServer.versionLine(of: binary)) ?? "version unknown"
        print("PocketBase: \(binary), \(version)" + (version.hasSuffix(PocketBaseServer.version) ? "" : " (the figures compare \(PocketBaseServer.version))"))
    } else {
        print("PocketBase: skipped, \(pocketBase.reason)")
    }
}
report.printColumns()

for scenario in options.scenarios where scenario != .pocketBase || pocketBase.path != nil {
    let server = try scenario.launch(pocketBase: pocketBase.path)
    defer { server.stop() }
    for connections in options.connections {
        let generator = LoadGenerator(
            host: "127.0.0.1", port: server.port, connections: connections, warmup: options.warmup,
            seconds: options.seconds, serverProcess: server.process.processIdentifier)
        let result = try await generator.run(SaveRequest.make(host: "127.0.0.1", port: server.port, path: server.savePath), on: clientGroup)
        report.add(.init(scenario: scenario, connections: connections, result: result, seconds: options.seconds))
    }
}
report.printComparisons()
try await clientGroup.shutdownGracefully()
