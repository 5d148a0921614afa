import Foundation

/// Wall-clock timestamps for evidence: ISO 8601 in UTC with milliseconds, `2026-11-29T13:09:50.123Z`.
///
/// Formatting and parsing this one shape is done by hand (every record has two timestamps, every report reads
/// them back); anything else goes through Foundation's `Date.ISO8601FormatStyle`, with the same results.
public enum Timestamp {
    /// `2026-11-29T13:09:50.123Z`: the time truncated to the millisecond, as `Date.ISO8601FormatStyle` with
    /// fractional seconds writes it.
    public static func iso8601(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        // Years 1970 to 9999: whole milliseconds are exact in a Double there.
        guard seconds >= 0, seconds < 253_402_300_800 else {
            return Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
        }
        return iso8601(milliseconds: Int64((seconds * 1000).rounded(.down)))
    }

    /// An ISO 8601 rendering of ms since 1970.
    public static func iso8601(milliseconds: Int64) -> String {
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else {
            return Date.ISO8601FormatStyle(includingFractionalSeconds: true)
                .format(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        let days = milliseconds / 86_400_000
        var rest = milliseconds % 86_400_000
        let (year, month, day) = civil(days: days)
        let hour = rest / 3_600_000
        rest %= 3_600_000
        let minute = rest / 60_000
        rest %= 60_000
        let second = rest / 1000
        let millisecond = rest % 1000
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(minute, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(second, 2)
        bytes.append(UInt8(ascii: "."))
        digits(millisecond, 3)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Milliseconds since 1970 of an ISO 8601 time: `2026-11-29T13:09:50.123Z` read directly, other forms
    /// (no fraction, an offset) through Foundation.
    ///
    /// - Returns: `nil` when `text` is not an ISO 8601 date and time.
    public static func milliseconds(_ text: String) -> Int64? {
        if let fast = parseCanonical(text) { return fast }
        let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
        return date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` exactly, with a valid date and time.
    private static func parseCanonical(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "."),
              bytes[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let millisecond = number(20..<23),
              year >= 1970, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`), for `days` ≥ 0.
    private static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
