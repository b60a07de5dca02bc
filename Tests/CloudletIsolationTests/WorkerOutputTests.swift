import Foundation
import Logging
import Testing

import CloudletTesting

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The lines `text` completes, fed to `splitter` in one chunk.
private func lines(_ splitter: inout LineSplitter, _ text: String) -> [String] {
    splitter.append(ArraySlice(text.utf8)).map(\.text)
}

/// A worker's output, cut into lines of bounded length.
@Suite struct LineSplitterTests {
    @Test func linesAreSplitAcrossChunks() {
        var splitter = LineSplitter()
        #expect(lines(&splitter, "one\ntw") == ["one"])
        #expect(lines(&splitter, "o\nthree") == ["two"])
        #expect(splitter.finish().map(\.text) == ["three"])
    }

    @Test func aLongLineIsCutOnceWithAMarkAndTheRestOfItDropped() {
        var splitter = LineSplitter()
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: LineSplitter.maximumLineBytes + 5000)
        var found: [String] = []
        for chunk in stride(from: 0, to: long.count, by: 1000) {
            found += splitter.append(long[chunk..<min(chunk + 1000, long.count)]).map(\.text)
        }
        found += lines(&splitter, "\nnext\n")
        #expect(found.count == 2)
        #expect(found[0] == String(repeating: "a", count: LineSplitter.maximumLineBytes) + LineSplitter.cutMarker)
        #expect(found[1] == "next")
    }

    @Test func aLineOfExactlyTheBoundIsKeptWhole() {
        var splitter = LineSplitter()
        let line = String(repeating: "b", count: LineSplitter.maximumLineBytes)
        #expect(lines(&splitter, line + "\n") == [line])
    }

    @Test func theRuntimesTrapLineIsRecognisedWithoutMakingText() {
        var splitter = LineSplitter()
        let found = splitter.append(ArraySlice("hello\nWorker/Hooks.swift:12: Fatal error: Unexpectedly found nil\n".utf8))
        #expect(found.map(\.isFatalError) == [false, true])
    }
}

/// One app's worker output on its way to the log: a second's worth of lines and bytes at most,
/// refilled as time passes; the rest dropped, counted and summarised.
@Suite struct WorkerOutputRelayTests {
    let start = ContinuousClock.now

    func relay(lines: Int, bytes: Int) -> WorkerOutputRelay {
        WorkerOutputRelay(
            appId: "noisy", limits: WorkerOutputRelay.Limits(linesPerSecond: lines, bytesPerSecond: bytes), metrics: nil,
            logger: Logger(label: "test"), now: start)
    }

    func output(_ count: Int, bytes: Int = 10) -> [LineSplitter.Line] {
        var splitter = LineSplitter()
        return splitter.append(ArraySlice(String(repeating: String(repeating: "x", count: bytes) + "\n", count: count).utf8))
    }

    @Test func aSecondsWorthOfLinesPassesThenTheRestIsDroppedUntilTheBucketRefills() {
        let relay = relay(lines: 100, bytes: 1 << 20)
        #expect(relay.admit(output(250), at: start).count == 100)
        #expect(relay.admit(output(10), at: start + .milliseconds(15)).count == 1, "15 ms refill one and a half lines")
        #expect(relay.admit(output(300), at: start + .seconds(5)).count == 100, "the bucket holds a second's worth, no more")
    }

    @Test func bytesAreBoundedToo() {
        let relay = relay(lines: 1000, bytes: 10_000)
        #expect(relay.admit(output(20, bytes: 1000), at: start).count == 10)
        #expect(!relay.admit(bytes: 500, at: start), "a log record takes from the same bucket")
        #expect(relay.admit(bytes: 500, at: start + .milliseconds(100)))
    }

    @Test func theByteRateAlwaysLetsALineCutAtItsBoundThrough() {
        let relay = relay(lines: 10, bytes: 100)
        let long = [UInt8](repeating: UInt8(ascii: "z"), count: LineSplitter.maximumLineBytes * 2) + [UInt8(ascii: "\n")]
        var splitter = LineSplitter()
        #expect(relay.admit(splitter.append(long[...]), at: start).count == 1)
    }

    @Test func whatWasDroppedIsSaidInOneWarningPerIntervalAndNotWhenNothingWas() throws {
        let logs = CapturedLogs()
        let relay = WorkerOutputRelay(
            appId: "noisy", limits: WorkerOutputRelay.Limits(linesPerSecond: 10, bytesPerSecond: 1 << 20), metrics: nil,
            logger: logs.logger(label: "workers"), now: start)
        _ = relay.admit(output(25), at: start)
        relay.summarize(at: start + .seconds(9))
        #expect(logs.all.isEmpty, "not before the interval has passed")
        relay.summarize(at: start + WorkerOutputRelay.summaryInterval)
        let warning = try #require(logs.all.first)
        #expect(logs.all.count == 1 && warning.level == .warning)
        #expect(warning.message == "dropped worker output over the app's rate")
        #expect(warning.metadata["lines"] == "15" && warning.metadata["bytes"] == "150" && warning.metadata["seconds"] == "10")
        relay.summarize(at: start + WorkerOutputRelay.summaryInterval * 3)
        #expect(logs.all.count == 1, "nothing dropped since: no second warning")
    }
}
