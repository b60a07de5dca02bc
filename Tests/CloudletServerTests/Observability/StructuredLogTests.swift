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
        capture.logger(.logfmt).warning(
            "disk \"full\"\nnow", metadata: ["path": "/var/data 1", "count": "3", "city": "Zürich", "note": "naïve value", "empty": ""])
        let line = try #require(capture.all.first)
        #expect(capture.all.count == 1)
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        #expect(line.firstMatch(of: #/^time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z level=warning label=cloudlet\.test /#) != nil, "\(line)")
        #expect(line.contains(#"msg="disk \"full\"\nnow" city=Zürich count=3 empty="" note="naïve value" path="/var/data 1""#), "\(line)")
    }

    /// A client's value cannot end its line or forge another: `"\r\n"` is one `Character` but two
    /// control characters, and every control character of a value or a key is escaped.
    @Test func logfmtEscapesEveryControlCharacter() throws {
        let capture = Capture()
        let forged = "ada\r\ntime=2026-01-01T00:00:00.000Z level=error msg=forged"
        capture.logger(.logfmt).info(
            "login \(forged)",
            metadata: [
                "username": "\(forged)", "nul": "a\u{0}b", "escape": "\u{1b}[31mred", "separator": "a\u{2028}b\u{2029}c",
                "c1": "\u{85}\u{9b}\u{7f}", "bidi": "\u{202e}", "tab": "a\tb", "hook key\r\n=x": "v",
            ])
        #expect(capture.all.count == 1)
        let line = try #require(capture.all.first)
        #expect(line.hasSuffix("\n"))
        let controls = line.dropLast().unicodeScalars.filter { $0.properties.generalCategory == .control || [0x2028, 0x2029, 0x202e].contains($0.value) }
        #expect(controls.isEmpty, "\(line)")
        #expect(line.contains(#"msg="login ada\r\ntime=2026-01-01T00:00:00.000Z level=error msg=forged""#), "\(line)")
        #expect(line.contains(#" username="ada\r\ntime="#), "\(line)")
        #expect(line.contains(#" nul="a\u0000b""#), "\(line)")
        #expect(line.contains(#" escape="\u001b[31mred""#), "\(line)")
        #expect(line.contains(#" separator="a\u2028b\u2029c""#), "\(line)")
        #expect(line.contains(#" c1="\u0085\u009b\u007f""#), "\(line)")
        #expect(line.contains(#" bidi="\u202e""#), "\(line)")
        #expect(line.contains(#" tab="a\tb""#), "\(line)")
        #expect(line.contains(#" hook\u0020key\u000d\u000a\u003dx=v"#), "\(line)")
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

    @Test func anEntrysMetadataOverridesTheProvidersWhichOverridesTheLoggersAndKeysAreSorted() throws {
        let lines = Mutex<[String]>([])
        let provider = Logger.MetadataProvider { ["shared": "provider", "b": "2", "hb.request.id": "hb"] }
        var logger = Logger(label: "cloudlet.test") { label in
            StructuredLogHandler(label: label, format: .logfmt, metadataProvider: provider) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "shared"] = "logger"
        logger[metadataKey: "a"] = "1"
        logger.info("first", metadata: ["shared": "entry", "c": "3"])
        logger.info("second", metadata: ["request_id": "own"])
        logger.info("third")
        let all = lines.withLock { $0 }
        #expect(all.count == 3)
        // Hummingbird's request id is written as `request_id`, unless a `request_id` is given.
        #expect(all[0].hasSuffix(" msg=first a=1 b=2 c=3 request_id=hb shared=entry\n"), "\(all[0])")
        #expect(all[1].hasSuffix(" msg=second a=1 b=2 request_id=own shared=provider\n"), "\(all[1])")
        #expect(all[2].hasSuffix(" msg=third a=1 b=2 request_id=hb shared=provider\n"), "\(all[2])")
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
