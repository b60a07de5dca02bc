import Cloudlet
import Foundation

/// A five-field cron expression, read in UTC: `minute hour day-of-month month day-of-week`.
///
/// Each field is `*`, a number, a range `a-b`, a step `*/n`, `a-b/n` or `a/n`, or a comma-separated
/// list of these; months and weekdays may also be named (`JAN`, `MON`); weekday 0 and 7 are both
/// Sunday. As in cron, when both day fields are restricted a day matching either one fires.
///
/// ```swift
/// let nightly = try CronSchedule("0 3 * * *")
/// nightly.next(after: now) // 03:00 UTC of today or tomorrow
/// ```
public struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    /// Why an expression was refused, in words for the operator.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The expression as given.
    public let expression: String
    private let minutes: CronField
    private let hours: CronField
    private let daysOfMonth: CronField
    private let months: CronField
    private let daysOfWeek: CronField

    /// Reads `expression`; throws ``Invalid`` naming the field at fault, or when the expression can
    /// never fire (such as `0 0 30 2 *`).
    public init(_ expression: String) throws(Invalid) {
        let fields = expression.split(whereSeparator: \.isWhitespace).map(String.init)
        guard fields.count == 5 else {
            throw Invalid(description: "\"\(expression)\" has \(fields.count) fields; a schedule has 5: minute hour day-of-month month day-of-week")
        }
        self.expression = fields.joined(separator: " ")
        minutes = try CronField(fields[0], name: "minute", range: 0...59)
        hours = try CronField(fields[1], name: "hour", range: 0...23)
        daysOfMonth = try CronField(fields[2], name: "day-of-month", range: 1...31)
        months = try CronField(fields[3], name: "month", range: 1...12, names: Self.monthNames)
        daysOfWeek = try CronField(fields[4], name: "day-of-week", range: 0...7, names: Self.weekdayNames).sundayFolded
        guard next(after: Date(timeIntervalSince1970: 0)) != nil else {
            throw Invalid(description: "\"\(expression)\" never fires: no month has such a day")
        }
    }

    public var description: String { expression }

    /// The first minute strictly after `date` that the schedule fires at, or nil if there is none
    /// within eight years (a schedule that passes ``init(_:)`` always has one).
    public func next(after date: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = (date.timeIntervalSince1970 / 60).rounded(.down) * 60 + 60
        var time = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: start))
        let lastYear = time.year! + 8
        while time.year! <= lastYear {
            guard months.contains(time.month!) else {
                time.month! += 1
                time.day = 1
                time.hour = 0
                time.minute = 0
                if time.month! > 12 {
                    time.month = 1
                    time.year! += 1
                }
                continue
            }
            let firstOfMonth = calendar.date(from: DateComponents(year: time.year, month: time.month, day: 1))!
            guard time.day! <= calendar.range(of: .day, in: .month, for: firstOfMonth)!.count else {
                time.day = 1
                time.hour = 0
                time.minute = 0
                time.month! += 1
                if time.month! > 12 {
                    time.month = 1
                    time.year! += 1
                }
                continue
            }
            let day = calendar.date(from: DateComponents(year: time.year, month: time.month, day: time.day))!
            guard firesOn(day: time.day!, weekday: calendar.component(.weekday, from: day) - 1) else {
                time.day! += 1
                time.hour = 0
                time.minute = 0
                continue
            }
            guard let hour = hours.first(atLeast: time.hour!) else {
                time.day! += 1
                time.hour = 0
                time.minute = 0
                continue
            }
            if hour != time.hour {
                time.hour = hour
                time.minute = 0
            }
            guard let minute = minutes.first(atLeast: time.minute!) else {
                time.hour! += 1
                time.minute = 0
                if time.hour! > 23 {
                    time.day! += 1
                    time.hour = 0
                }
                continue
            }
            time.minute = minute
            return calendar.date(from: time)
        }
        return nil
    }

    /// Whether the day fields allow a day: either one when both are restricted, as cron has it.
    private func firesOn(day: Int, weekday: Int) -> Bool {
        switch (daysOfMonth.isEvery, daysOfWeek.isEvery) {
        case (true, true): true
        case (false, true): daysOfMonth.contains(day)
        case (true, false): daysOfWeek.contains(weekday)
        case (false, false): daysOfMonth.contains(day) || daysOfWeek.contains(weekday)
        }
    }

    private static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        .enumerated().reduce(into: [String: Int]()) { $0[$1.element] = $1.offset + 1 }
    private static let weekdayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
        .enumerated().reduce(into: [String: Int]()) { $0[$1.element] = $1.offset }
}

/// The values one field of a cron expression allows, as a bit set.
private struct CronField: Sendable, Hashable {
    private(set) var bits: UInt64 = 0
    /// Whether the field starts with `*` (which matters for the two day fields, as in cron).
    private(set) var isEvery = false

    init(_ text: String, name: String, range: ClosedRange<Int>, names: [String: Int] = [:]) throws(CronSchedule.Invalid) {
        func invalid(_ why: String) -> CronSchedule.Invalid {
            CronSchedule.Invalid(description: "\(name) field \"\(text)\": \(why)")
        }
        func value(_ part: Substring) throws(CronSchedule.Invalid) -> Int {
            guard let number = Int(part) ?? names[part.uppercased()] else { throw invalid("\"\(part)\" is not a number") }
            guard range.contains(number) else { throw invalid("\(number) is outside \(range.lowerBound)-\(range.upperBound)") }
            return number
        }
        isEvery = text.hasPrefix("*")
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let base = parts.first, !base.isEmpty else { throw invalid("\"\(item)\" is not a value, range or step") }
            var step = 1
            if parts.count == 2 {
                guard let number = Int(parts[1]), number > 0 else { throw invalid("step \"\(parts[1])\" must be a positive number") }
                step = number
            }
            var low = range.lowerBound, high = range.upperBound
            if base != "*" {
                let bounds = base.split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count <= 2 else { throw invalid("\"\(base)\" is not a range") }
                low = try value(bounds[0])
                // `a/n` runs from a to the end of the field, as in cron.
                high = bounds.count == 2 ? try value(bounds[1]) : (parts.count == 2 ? range.upperBound : low)
                guard low <= high else { throw invalid("range \(base) runs backwards") }
            }
            for number in stride(from: low, through: high, by: step) { bits |= 1 << UInt64(number) }
        }
    }

    /// The field with weekday 7 read as 0 (both are Sunday).
    var sundayFolded: CronField {
        var field = self
        if field.bits & (1 << 7) != 0 { field.bits = (field.bits & ~(1 << 7)) | 1 }
        return field
    }

    func contains(_ value: Int) -> Bool { bits & (1 << UInt64(value)) != 0 }

    /// The smallest allowed value at least `value`, or nil.
    func first(atLeast value: Int) -> Int? {
        guard value < 64 else { return nil }
        let rest = bits >> UInt64(value)
        return rest == 0 ? nil : value + rest.trailingZeroBitCount
    }
}
