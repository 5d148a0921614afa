import Foundation
import Testing
import MatrixJSON

@Suite("Timestamps")
struct TimestampTests {
    let foundation = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    @Test("Milliseconds from 1970 to 9999 format as Foundation formats them, and parse back")
    func formatsLikeFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [0, 1, 999, 86_399_999, 951_782_400_000, 1_767_225_600_000, 253_402_300_799_999]
        for _ in 0..<2_000 { samples.append(Int64.random(in: 0..<253_402_300_800_000, using: &generator)) }
        for ms in samples {
            // Half a millisecond in, where Foundation's truncation cannot slip to the millisecond before.
            let date = Date(timeIntervalSince1970: (Double(ms) + 0.5) / 1000)
            let text = Timestamp.iso8601(milliseconds: ms)
            #expect(text == foundation.format(date), "\(ms)")
            #expect(Timestamp.iso8601(date) == text, "\(ms)")
            #expect(Timestamp.milliseconds(text) == ms, "\(text)")
        }
    }

    @Test("A time between milliseconds is truncated, as Foundation does")
    func truncates() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_768_471_200.9996)) == "2026-01-15T10:00:00.999Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0.0004)) == "1970-01-01T00:00:00.000Z")
    }

    @Test("Times outside 1970–9999 go through Foundation")
    func outsideRange() {
        let before = Date(timeIntervalSince1970: -1.5)
        #expect(Timestamp.iso8601(before) == foundation.format(before))
        #expect(Timestamp.iso8601(milliseconds: -1_500) == "1969-12-31T23:59:58.500Z")
    }

    @Test("Other ISO 8601 forms parse as Foundation parses them; text that is no date gives nil", arguments: [
        ("2026-01-15T10:00:00Z", Optional<Int64>(1_768_471_200_000)),
        ("2026-01-15T11:00:00.250+01:00", 1_768_471_200_250),
        ("2026-01-15X10:00:00.000Z", nil),
        ("not a time", nil),
        ("", nil),
    ])
    func parses(text: String, expected: Int64?) {
        #expect(Timestamp.milliseconds(text) == expected)
    }
}
