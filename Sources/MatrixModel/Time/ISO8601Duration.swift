import Foundation

/// An ISO 8601 duration such as `P1M`, `P1Y`, `P3D`, `P2W` or `PT12H`.
///
/// Subscription periods in `.storekit` files (`recurringSubscriptionPeriod`, offer `subscriptionPeriod`) and
/// durations in matrices use this form. Years and months are calendar units: adding `P1M` to January 31
/// gives the last day of February, as the App Store does for monthly renewals.
public struct ISO8601Duration: Sendable, Hashable, Codable, CustomStringConvertible {
    public var years = 0
    public var months = 0
    public var weeks = 0
    public var days = 0
    public var hours = 0
    public var minutes = 0
    public var seconds = 0

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Parses `PnYnMnWnDTnHnMnS` (each part optional, at least one present, integers only).
    ///
    /// Returns `nil` for anything else, including an empty `P`, a `T` with nothing after it, negative or
    /// fractional values, and values above one million in any unit.
    public init?(_ text: String) {
        var scalars = Substring(text).unicodeScalars[...]
        guard scalars.first == "P" else { return nil }
        scalars = scalars.dropFirst()
        var inTime = false
        var sawPart = false
        var sawTimePart = false
        var digits = ""
        var lastRank = -1
        for scalar in scalars {
            if scalar == "T" {
                guard !inTime, digits.isEmpty else { return nil }
                inTime = true
                continue
            }
            if ("0"..."9").contains(scalar) {
                digits.unicodeScalars.append(scalar)
                guard digits.count <= 7 else { return nil }
                continue
            }
            guard !digits.isEmpty, let value = Int(digits), value <= 1_000_000 else { return nil }
            digits = ""
            let rank: Int
            switch (inTime, scalar) {
            case (false, "Y"): years = value; rank = 0
            case (false, "M"): months = value; rank = 1
            case (false, "W"): weeks = value; rank = 2
            case (false, "D"): days = value; rank = 3
            case (true, "H"): hours = value; rank = 4
            case (true, "M"): minutes = value; rank = 5
            case (true, "S"): seconds = value; rank = 6
            default: return nil
            }
            guard rank > lastRank else { return nil }
            lastRank = rank
            sawPart = true
            if inTime { sawTimePart = true }
        }
        guard digits.isEmpty, sawPart, !inTime || sawTimePart else { return nil }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = ISO8601Duration(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 duration: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Whether the duration lasts at most one year on any calendar: at most 12 months when it has only years
    /// and months, otherwise at most 365 days counting a month as 31 days and a year as 366.
    public var isAtMostOneYear: Bool {
        if weeks == 0, days == 0, hours == 0, minutes == 0, seconds == 0 { return Double(years) * 12 + Double(months) <= 12 }
        let days = Double(years) * 366 + Double(months) * 31 + Double(weeks) * 7 + Double(self.days)
            + (Double(hours) * 3600 + Double(minutes) * 60 + Double(seconds)) / 86_400
        return days <= 365
    }

    /// The canonical text, e.g. `P1M` or `P1DT12H`; `PT0S` for zero.
    public var description: String {
        var text = "P"
        if years > 0 { text += "\(years)Y" }
        if months > 0 { text += "\(months)M" }
        if weeks > 0 { text += "\(weeks)W" }
        if days > 0 { text += "\(days)D" }
        if hours > 0 || minutes > 0 || seconds > 0 {
            text += "T"
            if hours > 0 { text += "\(hours)H" }
            if minutes > 0 { text += "\(minutes)M" }
            if seconds > 0 { text += "\(seconds)S" }
        }
        return text == "P" ? "PT0S" : text
    }

    /// Whether the duration is zero.
    public var isZero: Bool { self == ISO8601Duration() }

    /// The duration multiplied by `factor` (for offers of several periods).
    public func multiplied(by factor: Int) -> ISO8601Duration {
        ISO8601Duration(years: years * factor, months: months * factor, weeks: weeks * factor, days: days * factor,
                        hours: hours * factor, minutes: minutes * factor, seconds: seconds * factor)
    }

    /// An approximate length in days (a month counts 30 days, a year 365), for tables and estimates only.
    public var approximateDays: Double {
        Double(years) * 365 + Double(months) * 30 + Double(weeks) * 7 + Double(days)
            + (Double(hours) + (Double(minutes) + Double(seconds) / 60) / 60) / 24
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// Adds the duration to a point in time, in UTC calendar arithmetic.
    ///
    /// - Parameter milliseconds: ms since 1970-01-01T00:00:00Z.
    /// - Returns: ms since 1970.
    public func added(to milliseconds: Int64) -> Int64 {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var components = DateComponents()
        components.year = years
        components.month = months
        components.day = weeks * 7 + days
        components.hour = hours
        components.minute = minutes
        components.second = seconds
        guard let result = Self.calendar.date(byAdding: components, to: date) else {
            return milliseconds + Int64(approximateDays * 86_400_000)
        }
        return Int64((result.timeIntervalSince1970 * 1000).rounded())
    }
}
