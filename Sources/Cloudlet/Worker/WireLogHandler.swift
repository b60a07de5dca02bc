import CloudletWire
import Logging
import NIOCore

/// A `LogHandler` that sends each line a hook logs to the host as a log record of its invocation;
/// the host writes it to the app's hook log, tagged with app, hook and request id.
struct WireLogHandler: LogHandler {
    let invocationId: UInt64
    let connection: any WireTransport
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let json = ParseValue.object(merged.mapValues { .string("\($0)") })
        connection.send(
            .log(
                WireLogRecord(
                    invocationId: invocationId, level: UInt8(Logger.Level.allCases.firstIndex(of: event.level) ?? 0),
                    message: "\(event.message)", metadata: ByteBuffer(bytes: JSONWriter.bytes(json)))))
    }
}
