import CloudletServer
import Foundation
import Testing

/// Five-field cron expressions: what they allow, when they fire next (in UTC), and what is refused.
@Suite("Cron schedules")
struct CronScheduleTests {
    /// 2026-01-01T00:00:00Z, a Thursday.
    static let newYear = Date(timeIntervalSince1970: 1_767_225_600)

    static func time(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!
    }

    static func next(_ expression: String, after text: String) throws -> String? {
        try CronSchedule(expression).next(after: time(text)).map { ISO8601DateFormatter().string(from: $0) }
    }

    @Test func eachFieldFormIsRead() throws {
        #expect(try Self.next("* * * * *", after: "2026-01-01T00:00:30Z") == "2026-01-01T00:01:00Z", "the next whole minute")
        #expect(try Self.next("0 3 * * *", after: "2026-01-01T03:00:00Z") == "2026-01-02T03:00:00Z", "strictly after")
        #expect(try Self.next("0 3 * * *", after: "2026-01-01T02:59:59Z") == "2026-01-01T03:00:00Z")
        #expect(try Self.next("*/15 * * * *", after: "2026-01-01T10:16:00Z") == "2026-01-01T10:30:00Z", "a step")
        #expect(try Self.next("5,35 * * * *", after: "2026-01-01T10:06:00Z") == "2026-01-01T10:35:00Z", "a list")
        #expect(try Self.next("0 9-17/4 * * *", after: "2026-01-01T13:00:00Z") == "2026-01-01T17:00:00Z", "a stepped range")
        #expect(try Self.next("30/10 * * * *", after: "2026-01-01T10:55:00Z") == "2026-01-01T11:30:00Z", "a/n runs to the field's end")
        #expect(try Self.next("0 0 1 */3 *", after: "2026-01-15T00:00:00Z") == "2026-04-01T00:00:00Z", "every quarter")
        #expect(try Self.next("0 12 * JUN *", after: "2026-01-01T00:00:00Z") == "2026-06-01T12:00:00Z", "a month by name")
    }

    @Test func weekdaysCountFromSundayAndBothDayFieldsFireEither() throws {
        #expect(try Self.next("0 8 * * MON-FRI", after: "2026-01-02T09:00:00Z") == "2026-01-05T08:00:00Z", "Friday → Monday")
        #expect(try Self.next("0 0 * * 0", after: "2026-01-01T00:00:00Z") == "2026-01-04T00:00:00Z", "0 is Sunday")
        #expect(try Self.next("0 0 * * 7", after: "2026-01-01T00:00:00Z") == "2026-01-04T00:00:00Z", "7 is Sunday too")
        #expect(try Self.next("0 0 13 * 5", after: "2026-01-01T00:00:00Z") == "2026-01-02T00:00:00Z", "the 13th or a Friday")
    }

    @Test func shortMonthsAndLeapDaysAreSkippedOver() throws {
        #expect(try Self.next("0 0 31 * *", after: "2026-04-01T00:00:00Z") == "2026-05-31T00:00:00Z", "April has no 31st")
        #expect(try Self.next("0 0 29 2 *", after: "2026-01-01T00:00:00Z") == "2028-02-29T00:00:00Z", "the next leap day")
        #expect(try Self.next("59 23 31 12 *", after: "2026-12-31T23:59:00Z") == "2027-12-31T23:59:00Z", "over the year's end")
    }

    @Test(arguments: [
        ("0 3 * *", "4 fields"), ("0 3 * * * *", "6 fields"), ("60 * * * *", "outside 0-59"), ("* 24 * * *", "outside 0-23"),
        ("* * 0 * *", "outside 1-31"), ("* * * 13 *", "outside 1-12"), ("* * * * 8", "outside 0-7"), ("*/0 * * * *", "positive"),
        ("5-1 * * * *", "backwards"), ("a * * * *", "not a number"), ("1,,2 * * * *", "not a value"), ("0 0 30 2 *", "never fires"),
        ("1-2-3 * * * *", "not a range"),
    ])
    func aBadExpressionIsRefusedWithItsReason(expression: String, reason: String) {
        #expect {
            try CronSchedule(expression)
        } throws: { error in
            (error as? CronSchedule.Invalid)?.description.contains(reason) == true
        }
    }

    @Test func spacingIsNormalised() throws {
        #expect(try CronSchedule("  0   3 * *\t*").expression == "0 3 * * *")
    }
}
