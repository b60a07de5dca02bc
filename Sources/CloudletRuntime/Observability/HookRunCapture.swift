import Foundation
import Logging
import Synchronization

/// Keeps the lines one hook run logs, up to a cap, while each line also goes on to the app's hook
/// log. What the run logs after it has ended (a hook left running past its deadline) is not kept.
final class HookRunCapture: Sendable {
    /// The most lines one run keeps.
    static let maximumLines = 50
    /// The most bytes of messages and metadata one run keeps.
    static let maximumBytes = 8 * 1024

    private struct State {
        var lines: [HookRun.Line] = []
        var bytes = 0
        var dropped = 0
        var ended = false
    }

    private let state = Mutex(State())

    /// `logger` with this capture in front of its handler, `metadata` joining each entry logged.
    /// (Given here rather than set on the logger after, which copies the handler once a key.)
    func capturing(_ logger: Logger, metadata: Logger.Metadata) -> Logger {
        Logger(label: logger.label) { _ in CaptureHandler(upstream: logger.handler, capture: self, metadata: metadata) }
    }

    /// Ends the capture and answers the lines kept and how many were left out.
    func end() -> (lines: [HookRun.Line], dropped: Int) {
        state.withLock { state in
            state.ended = true
            return (state.lines, state.dropped)
        }
    }

    fileprivate func keep(_ event: LogEvent) {
        let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
        let line = HookRun.Line(time: Date(), level: event.level.rawValue, message: "\(event.message)", metadata: metadata)
        let size = line.message.utf8.count + metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        state.withLock { state in
            guard !state.ended else { return }
            guard state.lines.count < Self.maximumLines, state.bytes + size <= Self.maximumBytes else {
                state.dropped += 1
                return
            }
            state.lines.append(line)
            state.bytes += size
        }
    }
}

/// Passes every entry at the hook log's level to its handler, and keeps a copy of every entry at
/// that level or at ``capturedLevel``, whichever is lower, in the run's capture: a server that logs
/// only warnings still shows an operator what its hooks said at `info`. Metadata
/// set on it (the hook's name, the request id) stays here and joins each entry as it is logged:
/// setting it costs nothing upstream (some handlers format their metadata on every change), and
/// a hook that logs nothing pays for nothing.
private struct CaptureHandler: LogHandler {
    var upstream: any LogHandler
    let capture: HookRunCapture
    private var own: Logger.Metadata = [:]

    init(upstream: any LogHandler, capture: HookRunCapture, metadata: Logger.Metadata) {
        self.upstream = upstream
        self.capture = capture
        own = metadata
    }

    /// The least level a run's capture keeps.
    static let capturedLevel = Logger.Level.info

    var logLevel: Logger.Level {
        get { min(upstream.logLevel, Self.capturedLevel) }
        set { upstream.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { upstream.metadata.merging(own) { $1 } }
        set { own = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { upstream.metadataProvider }
        set { upstream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { own[key] ?? upstream[metadataKey: key] }
        set { own[key] = newValue }
    }

    func log(event: LogEvent) {
        var joined = event
        if !own.isEmpty { joined.metadata = own.merging(event.metadata ?? [:]) { $1 } }
        if event.level >= upstream.logLevel { upstream.log(event: joined) }
        capture.keep(event)
    }
}
