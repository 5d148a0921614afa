import Foundation
import Testing
import MatrixModel

@Suite("ISO 8601 durations")
struct ISO8601DurationTests {
    @Test("valid durations parse into their parts and print canonically", arguments: [
        ("P1M", ISO8601Duration(months: 1), "P1M"),
        ("P1Y", ISO8601Duration(years: 1), "P1Y"),
        ("P1W", ISO8601Duration(weeks: 1), "P1W"),
        ("P2W", ISO8601Duration(weeks: 2), "P2W"),
        ("P3D", ISO8601Duration(days: 3), "P3D"),
        ("P6M", ISO8601Duration(months: 6), "P6M"),
        ("PT12H", ISO8601Duration(hours: 12), "PT12H"),
        ("PT1M", ISO8601Duration(minutes: 1), "PT1M"),
        ("PT45S", ISO8601Duration(seconds: 45), "PT45S"),
        ("P1DT12H", ISO8601Duration(days: 1, hours: 12), "P1DT12H"),
        ("P1MT1M", ISO8601Duration(months: 1, minutes: 1), "P1MT1M"),
        ("P1Y2M3W4DT5H6M7S", ISO8601Duration(years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7), "P1Y2M3W4DT5H6M7S"),
        ("P01M", ISO8601Duration(months: 1), "P1M"),
        ("P1000000D", ISO8601Duration(days: 1_000_000), "P1000000D"),
        ("P0D", ISO8601Duration(), "PT0S"),
        ("PT0S", ISO8601Duration(), "PT0S"),
    ])
    func valid(text: String, duration: ISO8601Duration, canonical: String) throws {
        let parsed = try #require(ISO8601Duration(text))
        #expect(parsed == duration)
        #expect(parsed.description == canonical)
        #expect(parsed.isZero == (canonical == "PT0S"))
    }

    @Test("anything else is not a duration", arguments: [
        "", "P", "PT", "1M", "M", "p1m", "P1m", "pt12h", "P-1M", "-P1M", "P+1M", "P1.5M", "P1,5M", "P1MT", "P1M1Y", "P1D1W",
        "PT1H1H", "P1Y1Y", "P1H", "PT1D", "PT1W", "P1", "PT1", "P1MT1", "PTT1H", "P1T1H", "P1X", "P10000000D", "P1000001D",
        " P1M", "P1M ", "P1 M", "P١M", "P1M\n", "1 month", "monthly",
    ])
    func invalid(text: String) {
        #expect(ISO8601Duration(text) == nil)
    }

    @Test("calendar arithmetic is in UTC and clamps to the end of shorter months", arguments: [
        ("P1M", 1_738_317_600_000, 1_740_736_800_000),  // 2025-01-31T10:00Z → 2025-02-28T10:00Z
        ("P1M", 1_706_659_200_000, 1_709_164_800_000),  // 2024-01-31 → 2024-02-29 (leap year)
        ("P1M", 1_743_379_200_000, 1_745_971_200_000),  // 2025-03-31 → 2025-04-30
        ("P1M", 1_765_756_800_000, 1_768_435_200_000),  // 2025-12-15 → 2026-01-15
        ("P1Y", 1_709_208_000_000, 1_740_744_000_000),  // 2024-02-29T12:00Z → 2025-02-28T12:00Z
        ("P4Y", 1_709_164_800_000, 1_835_395_200_000),  // 2024-02-29 → 2028-02-29
        ("P1W", 1_741_163_400_000, 1_741_768_200_000),  // 2025-03-05T08:30Z → 2025-03-12T08:30Z (US clocks change between)
        ("PT12H", 1_761_415_200_000, 1_761_458_400_000),  // 2025-10-25T18:00Z → 2025-10-26T06:00Z (EU clocks change between)
        ("P1D", 1_767_225_599_000, 1_767_311_999_000),  // 2025-12-31T23:59:59Z → 2026-01-01T23:59:59Z
        ("PT1S", 1_700_000_000_123, 1_700_000_001_123),  // milliseconds are kept
    ] as [(String, Int64, Int64)])
    func added(text: String, start: Int64, end: Int64) throws {
        let duration = try #require(ISO8601Duration(text))
        #expect(duration.added(to: start) == end)
    }

    @Test("monthly renewals from January 31 follow the clamped date")
    func chainedMonths() throws {
        let month = try #require(ISO8601Duration("P1M"))
        let february = month.added(to: 1_738_317_600_000)  // 2025-01-31T10:00Z
        #expect(february == 1_740_736_800_000)  // 2025-02-28T10:00Z
        #expect(month.added(to: february) == 1_743_156_000_000)  // 2025-03-28T10:00Z
    }

    @Test("multiplying scales every part; approximate days count 30-day months and 365-day years")
    func multiplyAndApproximate() throws {
        let duration = ISO8601Duration(years: 1, months: 2, weeks: 1, days: 3, hours: 12)
        #expect(duration.multiplied(by: 3) == ISO8601Duration(years: 3, months: 6, weeks: 3, days: 9, hours: 36))
        #expect(duration.multiplied(by: 3).description == "P3Y6M3W9DT36H")
        #expect(duration.approximateDays == 365 + 60 + 7 + 3 + 0.5)
        #expect(try #require(ISO8601Duration("PT6H")).approximateDays == 0.25)
    }

    @Test("durations encode as their text and decode from it")
    func codable() throws {
        let data = try JSONEncoder().encode(["period": ISO8601Duration(months: 1, days: 2)])
        #expect(String(decoding: data, as: UTF8.self) == #"{"period":"P1M2D"}"#)
        let decoded = try JSONDecoder().decode([String: ISO8601Duration].self, from: Data(#"{"p": "PT12H"}"#.utf8))
        #expect(decoded == ["p": ISO8601Duration(hours: 12)])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([String: ISO8601Duration].self, from: Data(#"{"p": "12 hours"}"#.utf8))
        }
    }
}
