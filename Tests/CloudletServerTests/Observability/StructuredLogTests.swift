import Cloudlet
import CloudletServer
import Logging
import Synchronization
import Testing

/// `--log-format`: one line per entry in logfmt or JSON, with the request id on every line of a request.
@Suite struct StructuredLogTests {
    /// A logger writing `format` lines into memory, with the request id provider.
    final class Capture: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }

        func logger(_ format: LogFormat) -> Logger {
            Logger(label: "cloudlet.test") { label in
                StructuredLogHandler(label: label, format: format, metadataProvider: RequestIdentity.metadataProvider) { line in
                    self.lines.withLock { $0.append(line) }
                }
            }
        }
    }

    @Test func logfmtWritesTimeLevelLabelMessageAndEscapedMetadata() throws {
        let capture = Capture()
        capture.logger(.logfmt).warning("disk \"full\"\nnow", metadata: ["path": "/var/data 1", "count": "3"])
        let line = try #require(capture.all.first)
        #expect(capture.all.count == 1)
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        #expect(line.firstMatch(of: #/^time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z level=warning label=cloudlet\.test /#) != nil, "\(line)")
        #expect(line.contains(#"msg="disk \"full\"\nnow" count=3 path="/var/data 1""#), "\(line)")
    }

    @Test func jsonWritesOneObjectPerLineWithEveryField() throws {
        let capture = Capture()
        capture.logger(.json).info("saved", metadata: ["class": "Posts", "quote": "\"x\""])
        let line = try #require(capture.all.first)
        let object = try JSONParser.parse(String(line.dropLast()))
        #expect(object["level"] == "info")
        #expect(object["label"] == "cloudlet.test")
        #expect(object["msg"] == "saved")
        #expect(object["class"] == "Posts")
        #expect(object["quote"] == "\"x\"")
        #expect(ParseDate.date(from: object["time"]?.stringValue ?? "") != nil)
    }

    @Test func everyLineLoggedWhileARequestIsServedCarriesItsId() async throws {
        let capture = Capture()
        var hummingbirdLogger = capture.logger(.logfmt)
        hummingbirdLogger[metadataKey: "hb.request.id"] = "r-42"
        let otherLogger = capture.logger(.json)
        RequestIdentity.$requestId.withValue("r-42") {
            hummingbirdLogger.info("GET /parse/health 200")
            otherLogger.error("after hook did not complete")
        }
        otherLogger.info("between requests")
        let lines = capture.all
        #expect(lines.count == 3)
        #expect(lines[0].contains(" request_id=r-42") && !lines[0].contains("hb.request.id"), "\(lines[0])")
        #expect(try JSONParser.parse(String(lines[1].dropLast()))["request_id"] == "r-42")
        #expect(try JSONParser.parse(String(lines[2].dropLast()))["request_id"] == nil)
    }
}
