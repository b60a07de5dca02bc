import Foundation

// cloudlet-files-benchmark [uploads per connection] [connections] [large upload MiB]
// Measures, against a server in a process of its own: upload and download throughput of a 5 MiB
// file at N connections (Cloudlet's /files routes against bare routes on the same HTTP stack),
// and the server's peak memory while N clients each upload a large file at once.
let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--serve" {
    try await BenchmarkServer.serve(folder: arguments[2])
    exit(0)
}
let perConnection = arguments.count > 1 ? Int(arguments[1]) ?? 10 : 10
let connections = arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8
let largeMebibytes = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
try await FilesBenchmark(perConnection: perConnection, connections: connections, largeMebibytes: largeMebibytes).run()
