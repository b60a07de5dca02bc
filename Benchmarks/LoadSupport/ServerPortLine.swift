import Foundation

/// The benchmark could not run as it should.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Reads the first line a benchmark's server process prints on `output`, `port N`, once it
/// listens, and answers N; `server` names the process in the failure when it ends first or
/// prints anything else.
public func readListeningPort(from output: Pipe, server: String) throws -> Int {
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let more = output.fileHandleForReading.availableData
        guard !more.isEmpty else { throw BenchmarkFailure("\(server): the server process ended before it listened") }
        line += more
    }
    guard let text = String(data: line, encoding: .utf8), text.hasPrefix("port "),
        let port = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw BenchmarkFailure("\(server): the server process printed \(String(decoding: line, as: UTF8.self))") }
    return port
}
