import MatrixModel

/// How long an app grants a non-renewing subscription, guessed from the product's names for `matrix init`.
///
/// StoreKit gives non-renewing subscriptions no expiration date; the app decides how long they last, so a
/// matrix must say it (`nonRenewing`). The guess reads the display name, then the reference name, then the
/// product ID, and takes the first that names a period: a unit word (`day`, `daily`, `week`, `weekly`, `month`,
/// `monthly`, `year`, `yearly`, `annual`, `annually`, with plurals) and a number written next to it
/// (`"1 year access"` → `P1Y`, `com.app.pro.day.7` → `P7D`, `"Week Pass"` → `P1W`). A name that names no period
/// gets ``fallback``, one year, and the generated matrix says so.
struct NonRenewingDuration: Sendable, Hashable {
    /// The duration when no name names a period.
    static let fallback = ISO8601Duration(years: 1)

    var duration: ISO8601Duration
    /// Which name the duration was read from, or `nil` when it is the fallback.
    var source: String?

    init(names: [String?]) {
        for name in names.compactMap({ $0 }) {
            if let duration = Self.duration(in: name) {
                self.duration = duration
                source = name
                return
            }
        }
        duration = Self.fallback
        source = nil
    }

    /// The period a name names, if it names one.
    static func duration(in text: String) -> ISO8601Duration? {
        let words = tokens(text)
        for (index, word) in words.enumerated() {
            guard let unit = unit(word) else { continue }
            let neighbours = [index > 0 ? words[index - 1] : nil, index + 1 < words.count ? words[index + 1] : nil]
            let count = neighbours.compactMap { $0.flatMap { Int($0) } }.first { (1...99).contains($0) } ?? 1
            switch unit {
            case "D": return ISO8601Duration(days: count)
            case "W": return ISO8601Duration(weeks: count)
            case "M": return ISO8601Duration(months: count)
            default: return ISO8601Duration(years: count)
            }
        }
        return nil
    }

    static func unit(_ word: String) -> String? {
        switch word {
        case "day", "days", "daily": "D"
        case "week", "weeks", "weekly": "W"
        case "month", "months", "monthly": "M"
        case "year", "years", "yearly", "annual", "annually": "Y"
        default: nil
        }
    }

    /// Lowercase words and numbers: split at anything that is not an ASCII letter or digit, at case changes
    /// and between letters and digits (`"7days"` → `7`, `days`).
    static func tokens(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            guard character.isASCII, character.isLetter || character.isNumber else {
                if !current.isEmpty { result.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, !current.isEmpty,
               previous.isNumber != character.isNumber || (previous.isLowercase && character.isUppercase) {
                result.append(current)
                current = ""
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { result.append(current) }
        return result.map { $0.lowercased() }
    }

    /// Two `advanceTime by` steps around the end of the duration, whatever the calendar: the first ends a day
    /// before its shortest possible length (a month counts at least 28 days, a year 365), the second moves
    /// past its longest (31 and 366). Durations of a day or less are split in halves instead.
    var checkpoints: (before: ISO8601Duration, after: ISO8601Duration) {
        let time = (duration.hours * 60 + duration.minutes) * 60 + duration.seconds
        let fixedDays = duration.weeks * 7 + duration.days
        let shortest = duration.years * 365 + duration.months * 28 + fixedDays
        let longest = duration.years * 366 + duration.months * 31 + fixedDays + (time > 0 ? 1 : 0)
        if shortest >= 2 {
            return (ISO8601Duration(days: shortest - 1), ISO8601Duration(days: longest - shortest + 2))
        }
        let seconds = max(2, shortest * 86_400 + time)
        return (ISO8601Duration(seconds: seconds / 2), ISO8601Duration(seconds: seconds))
    }
}
