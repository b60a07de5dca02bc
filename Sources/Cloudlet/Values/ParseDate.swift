import Foundation

/// Parse's date format, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, written and read without a
/// `DateFormatter` (which is slow and not safe to share across threads).
public enum ParseDate {
    /// The Parse text of `date`, for example `2026-01-02T03:04:05.678Z`.
    public static func string(from date: Date) -> String {
        let totalMilliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        let days = Int(floorDivide(seconds, 86_400))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        // A year takes four digits, more past 9999, and a minus sign before year 0 (ISO 8601's
        // expanded years).
        var yearDigits = 4
        var yearLimit = 10_000
        while abs(year) >= yearLimit {
            yearDigits += 1
            yearLimit *= 10
        }
        // Every save formats several dates: written into one buffer, not joined from pieces.
        return String(unsafeUninitializedCapacity: yearDigits + 21) { text in
            var end = 0
            func put(_ value: Int, digits: Int) {
                var rest = value
                for index in stride(from: end + digits - 1, through: end, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                end += digits
            }
            func put(_ byte: Unicode.Scalar) {
                text[end] = UInt8(ascii: byte)
                end += 1
            }
            if year < 0 { put("-") }
            put(abs(year), digits: yearDigits)
            put("-")
            put(month, digits: 2)
            put("-")
            put(day, digits: 2)
            put("T")
            put(secondOfDay / 3600, digits: 2)
            put(":")
            put(secondOfDay / 60 % 60, digits: 2)
            put(":")
            put(secondOfDay % 60, digits: 2)
            put(".")
            put(milliseconds, digits: 3)
            put("Z")
            return end
        }
    }

    /// The date written as `text` in ISO 8601 (`2026-01-02T03:04:05.678Z`, milliseconds optional), or nil.
    public static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for index in start..<(start + length) {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds = 0
        if bytes.count > 20 {
            let fractionDigits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...9).contains(fractionDigits),
                let fraction = number(20, fractionDigits)
            else { return nil }
            milliseconds = fractionDigits >= 3
                ? fraction / Int(pow(10, Double(fractionDigits - 3)))
                : fraction * Int(pow(10, Double(3 - fractionDigits)))
        } else if bytes.count != 20 {
            return nil
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: seconds + Double(milliseconds) / 1000)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    // Howard Hinnant's civil-from-days and days-from-civil algorithms (proleptic Gregorian calendar).
    private static func civilDate(fromDaysSinceEpoch days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
