import Cloudlet
import Foundation
import Testing

@Suite("Parse's date format")
struct ParseDateTests {
    @Test func writesMillisecondsInUTC() {
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 1_767_225_600.5)) == "2026-01-01T00:00:00.500Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z", "past four digits")
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: -62_167_219_200 - 86_400)) == "-0001-12-31T00:00:00.000Z", "before year 0")
    }

    @Test func readsWhatItWrites() throws {
        for seconds in [0.0, 1_767_225_600.123, 951_782_400.999, 4_102_444_799.001] {
            let text = ParseDate.string(from: Date(timeIntervalSince1970: seconds))
            let date = try #require(ParseDate.date(from: text))
            #expect(ParseDate.string(from: date) == text)
        }
    }

    @Test func acceptsDatesWithoutOrWithMoreFractionDigits() {
        #expect(ParseDate.date(from: "2026-01-01T00:00:00Z") == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(ParseDate.date(from: "2026-01-01T00:00:00.5Z") == Date(timeIntervalSince1970: 1_767_225_600.5))
        #expect(ParseDate.date(from: "2026-01-01T00:00:00.250000Z") == Date(timeIntervalSince1970: 1_767_225_600.25))
    }

    @Test(arguments: ["", "2026-01-01", "2026-13-01T00:00:00.000Z", "2026-01-01T25:00:00.000Z", "2026-01-01T00:00:00.000", "x026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.Z"])
    func refusesOtherText(_ text: String) {
        #expect(ParseDate.date(from: text) == nil)
    }
}
