import Testing
import MatrixModel

/// Each environment's clock against the figures in Apple's pages. Expected values are the literal figures of
/// Apple's tables (Apple's words and the same length in ms); tests named "choice" check what the schedule
/// chose where Apple is silent.
@Suite("Renewal schedules")
struct RenewalScheduleTests {
    /// 2026-01-01T12:00:00Z.
    static let start: Int64 = 1_767_268_800_000

    /// One row of an Apple table: under `schedule`, `period` lasts `words` (Apple's wording), `ms`.
    struct Row: Sendable, CustomTestStringConvertible {
        var schedule: RenewalSchedule
        var period: String
        var words: String
        var ms: Int64
        var testDescription: String { "\(schedule) \(period) → \(words)" }

        init(_ schedule: RenewalSchedule, _ period: String, _ words: String, _ ms: Int64) {
            self.schedule = schedule
            self.period = period
            self.words = words
            self.ms = ms
        }
    }

    func duration(_ text: String) throws -> ISO8601Duration {
        try #require(ISO8601Duration(text))
    }

    // MARK: StoreKit Testing in Xcode

    // SKTestSession.h: typedef NS_ENUM(NSInteger, SKTestTimeRate)
    @Test("SKTestSession.h (SKTestTimeRate) and timerate-swift.enum: each raw value names Apple's case", arguments: [
        (0, "realTime"), (1, "oneHourIsOneDay"), (2, "thirtyMinutesIsOneDay"), (3, "fiveMinutesIsOneDay"),
        (4, "oneMinuteIsOneDay"), (5, "thirtySecondsIsOneDay"), (6, "oneSecondIsOneDay"),
        (10, "monthlyRenewalEveryHour"), (11, "monthlyRenewalEveryThirtyMinutes"), (12, "monthlyRenewalEveryFifteenMinutes"),
        (13, "monthlyRenewalEveryFiveMinutes"), (15, "monthlyRenewalEveryThirtySeconds"),
        (1000, "oneRenewalEveryFifteenMinutes"), (1001, "oneRenewalEveryFiveMinutes"), (1002, "oneRenewalEveryMinute"),
        (1003, "oneRenewalEveryThirtySeconds"), (1004, "oneRenewalEveryTenSeconds"), (1005, "oneRenewalEveryTwoSeconds"),
    ])
    func timeRateRawValue(raw: Int, name: String) throws {
        let rate = try #require(RenewalSchedule.TimeRate(rawValue: raw))
        #expect(rate.name == name)
        #expect(rate.documentationURL == "https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum/\(name.lowercased())")
    }

    @Test("SKTestSession.h: 18 time rates, none at 7, 8, 9, 14, 16 or above 1005", arguments: [7, 8, 9, 14, 16, 999, 1006, -1])
    func timeRateGaps(raw: Int) {
        #expect(RenewalSchedule.TimeRate.allCases.count == 18)
        #expect(RenewalSchedule.TimeRate(rawValue: raw) == nil)
    }

    @Test("SKTestSession.h: the …IsOneDay rates (1–6) are deprecated; 4, 5, 6 name their replacements")
    func deprecatedRates() {
        let deprecated = RenewalSchedule.TimeRate.allCases.filter(\.isDeprecated).map(\.rawValue)
        #expect(deprecated == [1, 2, 3, 4, 5, 6])
        let replacements = RenewalSchedule.TimeRate.allCases.compactMap { rate in rate.replacement.map { [rate.rawValue, $0.rawValue] } }
        #expect(replacements == [[4, 11], [5, 12], [6, 15]])
    }

    @Test("timerate-swift.enum/monthlyRenewalEvery… tables: renewal time per subscription period", arguments: [
        Row(.xcode(.monthlyRenewalEveryHour), "P1W", "15 minutes", 900_000),
        Row(.xcode(.monthlyRenewalEveryHour), "P1M", "1 hour", 3_600_000),
        Row(.xcode(.monthlyRenewalEveryHour), "P2M", "2 hours", 7_200_000),
        Row(.xcode(.monthlyRenewalEveryHour), "P3M", "3 hours", 10_800_000),
        Row(.xcode(.monthlyRenewalEveryHour), "P6M", "6 hours", 21_600_000),
        Row(.xcode(.monthlyRenewalEveryHour), "P1Y", "12 hours", 43_200_000),
        Row(.xcode(.monthlyRenewalEveryThirtyMinutes), "P1W", "10 minutes", 600_000),
        Row(.xcode(.monthlyRenewalEveryThirtyMinutes), "P1M", "30 minutes", 1_800_000),
        Row(.xcode(.monthlyRenewalEveryThirtyMinutes), "P2M", "1 hour", 3_600_000),
        Row(.xcode(.monthlyRenewalEveryThirtyMinutes), "P3M", "1 hour 30 minutes", 5_400_000),
        Row(.xcode(.monthlyRenewalEveryThirtyMinutes), "P6M", "3 hours", 10_800_000),
        Row(.xcode(.monthlyRenewalEveryThirtyMinutes), "P1Y", "6 hours", 21_600_000),
        Row(.xcode(.monthlyRenewalEveryFifteenMinutes), "P1W", "5 minutes", 300_000),
        Row(.xcode(.monthlyRenewalEveryFifteenMinutes), "P1M", "15 minutes", 900_000),
        Row(.xcode(.monthlyRenewalEveryFifteenMinutes), "P2M", "30 minutes", 1_800_000),
        Row(.xcode(.monthlyRenewalEveryFifteenMinutes), "P3M", "45 minutes", 2_700_000),
        Row(.xcode(.monthlyRenewalEveryFifteenMinutes), "P6M", "1 hour 30 minutes", 5_400_000),
        Row(.xcode(.monthlyRenewalEveryFifteenMinutes), "P1Y", "3 hours", 10_800_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P1W", "3 minutes", 180_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P1M", "5 minutes", 300_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P2M", "10 minutes", 600_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P3M", "15 minutes", 900_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P6M", "30 minutes", 1_800_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P1Y", "1 hour", 3_600_000),
        Row(.xcode(.monthlyRenewalEveryThirtySeconds), "P1W", "10 seconds", 10_000),
        Row(.xcode(.monthlyRenewalEveryThirtySeconds), "P1M", "30 seconds", 30_000),
        Row(.xcode(.monthlyRenewalEveryThirtySeconds), "P2M", "1 minute", 60_000),
        Row(.xcode(.monthlyRenewalEveryThirtySeconds), "P3M", "1 minute 30 seconds", 90_000),
        Row(.xcode(.monthlyRenewalEveryThirtySeconds), "P6M", "3 minutes", 180_000),
        Row(.xcode(.monthlyRenewalEveryThirtySeconds), "P1Y", "6 minutes", 360_000),
    ])
    func xcodeScaledRenewal(row: Row) throws {
        let period = try duration(row.period)
        #expect(row.schedule.periodEnd(period, from: Self.start) == Self.start + row.ms)
        #expect(row.schedule.wallTime(of: period, from: Self.start) == row.ms)
        #expect(row.schedule.wallTimeLabel(of: period) == row.words)
    }

    /// One row of an Xcode grace period and billing retry table.
    struct GraceRow: Sendable, CustomTestStringConvertible {
        var rate: RenewalSchedule.TimeRate
        var weeklyGrace: (String, Int64)
        var grace: (String, Int64)
        var billingRetry: (String, Int64)
        var testDescription: String { rate.name }
    }

    @Test("timerate-swift.enum case pages: grace period (weekly and other periods) and billing retry period", arguments: [
        GraceRow(rate: .realTime, weeklyGrace: ("6 days", 518_400_000), grace: ("16 days", 1_382_400_000),
                 billingRetry: ("60 days", 5_184_000_000)),
        GraceRow(rate: .monthlyRenewalEveryHour, weeklyGrace: ("12 minutes 51 seconds", 771_000), grace: ("30 minutes", 1_800_000),
                 billingRetry: ("2 hours", 7_200_000)),
        GraceRow(rate: .monthlyRenewalEveryThirtyMinutes, weeklyGrace: ("8 minutes 34 seconds", 514_000), grace: ("15 minutes", 900_000),
                 billingRetry: ("1 hour", 3_600_000)),
        GraceRow(rate: .monthlyRenewalEveryFifteenMinutes, weeklyGrace: ("4 minutes 17 seconds", 257_000),
                 grace: ("7 minutes 30 seconds", 450_000), billingRetry: ("30 minutes", 1_800_000)),
        GraceRow(rate: .monthlyRenewalEveryFiveMinutes, weeklyGrace: ("2 minutes 34 seconds", 154_000),
                 grace: ("2 minutes 30 seconds", 150_000), billingRetry: ("10 minutes", 600_000)),
        GraceRow(rate: .monthlyRenewalEveryThirtySeconds, weeklyGrace: ("9 seconds", 9_000), grace: ("15 seconds", 15_000),
                 billingRetry: ("1 minute", 60_000)),
        GraceRow(rate: .oneRenewalEveryFifteenMinutes, weeklyGrace: ("15 minutes", 900_000), grace: ("15 minutes", 900_000),
                 billingRetry: ("30 minutes", 1_800_000)),
        GraceRow(rate: .oneRenewalEveryFiveMinutes, weeklyGrace: ("5 minutes", 300_000), grace: ("5 minutes", 300_000),
                 billingRetry: ("10 minutes", 600_000)),
        GraceRow(rate: .oneRenewalEveryMinute, weeklyGrace: ("1 minute", 60_000), grace: ("1 minute", 60_000),
                 billingRetry: ("2 minutes", 120_000)),
        GraceRow(rate: .oneRenewalEveryThirtySeconds, weeklyGrace: ("30 seconds", 30_000), grace: ("30 seconds", 30_000),
                 billingRetry: ("1 minute", 60_000)),
        GraceRow(rate: .oneRenewalEveryTenSeconds, weeklyGrace: ("10 seconds", 10_000), grace: ("10 seconds", 10_000),
                 billingRetry: ("20 seconds", 20_000)),
        GraceRow(rate: .oneRenewalEveryTwoSeconds, weeklyGrace: ("2 seconds", 2_000), grace: ("2 seconds", 2_000),
                 billingRetry: ("4 seconds", 4_000)),
    ])
    func xcodeGraceAndRetry(row: GraceRow) throws {
        let schedule = RenewalSchedule.xcode(row.rate)
        let weekly = try duration("P1W")
        for period in try ["P1M", "P1Y"].map(duration) {
            #expect(schedule.gracePeriod(days: 16, for: period) == row.grace.1)
            #expect(RenewalSchedule.label(milliseconds: schedule.gracePeriod(days: 16, for: period)) == row.grace.0)
            #expect(schedule.billingRetryPeriod(for: period) == row.billingRetry.1)
            #expect(RenewalSchedule.label(milliseconds: schedule.billingRetryPeriod(for: period)) == row.billingRetry.0)
        }
        #expect(schedule.gracePeriod(days: 16, for: weekly) == row.weeklyGrace.1)
        #expect(RenewalSchedule.label(milliseconds: schedule.gracePeriod(days: 16, for: weekly)) == row.weeklyGrace.0)
        #expect(schedule.billingRetryPeriod(for: weekly) == row.billingRetry.1)
    }

    @Test("timerate-swift.enum/oneRenewalEvery… pages: subscriptions of any length renew every fixed time", arguments: [
        (RenewalSchedule.TimeRate.oneRenewalEveryFifteenMinutes, Int64(900_000)),
        (.oneRenewalEveryFiveMinutes, 300_000), (.oneRenewalEveryMinute, 60_000), (.oneRenewalEveryThirtySeconds, 30_000),
        (.oneRenewalEveryTenSeconds, 10_000), (.oneRenewalEveryTwoSeconds, 2_000),
    ])
    func xcodeFixedRenewal(rate: RenewalSchedule.TimeRate, ms: Int64) throws {
        let schedule = RenewalSchedule.xcode(rate)
        for period in try ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y", "P3D"].map(duration) {
            #expect(schedule.periodEnd(period, from: Self.start) == Self.start + ms)
        }
    }

    @Test("timerate-swift.enum/realtime: a weekly subscription renews in one week; monthly follows the calendar")
    func xcodeRealTime() throws {
        let schedule = RenewalSchedule.xcode(.realTime)
        #expect(schedule.periodEnd(try duration("P1W"), from: Self.start) == 1_767_873_600_000) // 2026-01-08T12:00Z
        #expect(schedule.periodEnd(try duration("P1M"), from: 1_769_817_600_000) == 1_772_236_800_000) // Jan 31 → Feb 28
        #expect(schedule.usesCalendar)
        #expect(schedule.wallTimeLabel(of: try duration("P1M")) == "1 month")
    }

    // MARK: Sandbox

    @Test("App Store Connect, Manage Sandbox Apple Account settings: renewal time per period for each renewal rate", arguments: [
        Row(.sandbox(.monthlyRenewalEveryThreeMinutes), "P1W", "3 minutes", 180_000),
        Row(.sandbox(.monthlyRenewalEveryThreeMinutes), "P1M", "3 minutes", 180_000),
        Row(.sandbox(.monthlyRenewalEveryThreeMinutes), "P2M", "6 minutes", 360_000),
        Row(.sandbox(.monthlyRenewalEveryThreeMinutes), "P3M", "9 minutes", 540_000),
        Row(.sandbox(.monthlyRenewalEveryThreeMinutes), "P6M", "18 minutes", 1_080_000),
        Row(.sandbox(.monthlyRenewalEveryThreeMinutes), "P1Y", "36 minutes", 2_160_000),
        Row(.sandbox(.monthlyRenewalEveryFiveMinutes), "P1W", "3 minutes", 180_000),
        Row(.sandbox(.monthlyRenewalEveryFiveMinutes), "P1M", "5 minutes", 300_000),
        Row(.sandbox(.monthlyRenewalEveryFiveMinutes), "P2M", "10 minutes", 600_000),
        Row(.sandbox(.monthlyRenewalEveryFiveMinutes), "P3M", "15 minutes", 900_000),
        Row(.sandbox(.monthlyRenewalEveryFiveMinutes), "P6M", "30 minutes", 1_800_000),
        Row(.sandbox(.monthlyRenewalEveryFiveMinutes), "P1Y", "1 hour", 3_600_000),
        Row(.sandbox(.monthlyRenewalEveryFifteenMinutes), "P1W", "5 minutes", 300_000),
        Row(.sandbox(.monthlyRenewalEveryFifteenMinutes), "P1M", "15 minutes", 900_000),
        Row(.sandbox(.monthlyRenewalEveryFifteenMinutes), "P2M", "30 minutes", 1_800_000),
        Row(.sandbox(.monthlyRenewalEveryFifteenMinutes), "P3M", "45 minutes", 2_700_000),
        Row(.sandbox(.monthlyRenewalEveryFifteenMinutes), "P6M", "1 hour 30 minutes", 5_400_000),
        Row(.sandbox(.monthlyRenewalEveryFifteenMinutes), "P1Y", "3 hours", 10_800_000),
        Row(.sandbox(.monthlyRenewalEveryThirtyMinutes), "P1W", "10 minutes", 600_000),
        Row(.sandbox(.monthlyRenewalEveryThirtyMinutes), "P1M", "30 minutes", 1_800_000),
        Row(.sandbox(.monthlyRenewalEveryThirtyMinutes), "P2M", "1 hour", 3_600_000),
        Row(.sandbox(.monthlyRenewalEveryThirtyMinutes), "P3M", "1 hour 30 minutes", 5_400_000),
        Row(.sandbox(.monthlyRenewalEveryThirtyMinutes), "P6M", "3 hours", 10_800_000),
        Row(.sandbox(.monthlyRenewalEveryThirtyMinutes), "P1Y", "6 hours", 21_600_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P1W", "15 minutes", 900_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P1M", "1 hour", 3_600_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P2M", "2 hours", 7_200_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P3M", "3 hours", 10_800_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P6M", "6 hours", 21_600_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P1Y", "12 hours", 43_200_000),
    ])
    func sandboxRenewal(row: Row) throws {
        let period = try duration(row.period)
        #expect(row.schedule.periodEnd(period, from: Self.start) == Self.start + row.ms)
        #expect(row.schedule.wallTimeLabel(of: period) == row.words)
    }

    @Test("testing-an-auto-renewable-subscription: Sandbox renews up to 12 times", arguments: RenewalSchedule.SandboxRenewalRate.allCases)
    func sandboxRenewalLimit(rate: RenewalSchedule.SandboxRenewalRate) {
        #expect(RenewalSchedule.sandbox(rate).maximumRenewals == 12)
        #expect(RenewalSchedule.sandbox(rate).supportsBillingRetry)
    }

    @Test("App Store Connect API patch-v2-sandboxTesters: subscriptionRenewalRate values", arguments: [
        (RenewalSchedule.SandboxRenewalRate.monthlyRenewalEveryThreeMinutes, "MONTHLY_RENEWAL_EVERY_THREE_MINUTES"),
        (.monthlyRenewalEveryFiveMinutes, "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES"),
        (.monthlyRenewalEveryFifteenMinutes, "MONTHLY_RENEWAL_EVERY_FIFTEEN_MINUTES"),
        (.monthlyRenewalEveryThirtyMinutes, "MONTHLY_RENEWAL_EVERY_THIRTY_MINUTES"),
        (.monthlyRenewalEveryOneHour, "MONTHLY_RENEWAL_EVERY_ONE_HOUR"),
    ])
    func sandboxAPIValue(rate: RenewalSchedule.SandboxRenewalRate, value: String) {
        #expect(rate.subscriptionRenewalRate == value)
    }

    @Test("Manage Sandbox Apple Account settings: by default 1 month = 5 minutes")
    func sandboxDefault() throws {
        #expect(RenewalSchedule.SandboxRenewalRate.default.rawValue == 5)
        #expect(try #require(RenewalSchedule("sandbox")).description == "sandbox:5")
    }

    // MARK: TestFlight

    @Test("Testing subscriptions in TestFlight: each subscription renews daily whatever its duration",
          arguments: ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"])
    func testFlightDaily(period: String) throws {
        let schedule = RenewalSchedule.testFlight
        #expect(schedule.periodEnd(try duration(period), from: Self.start) == Self.start + 86_400_000)
        #expect(schedule.wallTimeLabel(of: try duration(period)) == "1 day")
    }

    @Test("Testing subscriptions in TestFlight: up to 6 renewals; billing retry needs a Sandbox Apple Account")
    func testFlightLimits() throws {
        let schedule = RenewalSchedule.testFlight
        #expect(schedule.maximumRenewals == 6)
        #expect(!schedule.supportsBillingRetry)
        let reason = try #require(schedule.billingRetryUnsupportedReason)
        #expect(reason.contains("Sandbox Apple Account"))
        #expect(reason.contains("https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight"))
    }

    // MARK: Production

    @Test("Enable Billing Grace Period: 3, 16 or 28 days, at most 6 for weekly subscriptions", arguments: [
        (3, "P1M", Int64(259_200_000)), (16, "P1M", 1_382_400_000), (28, "P1Y", 2_419_200_000),
        (3, "P1W", 259_200_000), (16, "P1W", 518_400_000), (28, "P1W", 518_400_000),
    ])
    func realGrace(days: Int, period: String, ms: Int64) throws {
        #expect(RenewalSchedule.real.gracePeriod(days: days, for: try duration(period)) == ms)
    }

    @Test("Production: renewalstate/inbillingretryperiod 60 days; calendar periods; no renewal limit")
    func realRules() throws {
        let schedule = RenewalSchedule.real
        #expect(schedule.billingRetryPeriod(for: try duration("P1M")) == 5_184_000_000)
        #expect(schedule.periodEnd(try duration("P1M"), from: 1_769_817_600_000) == 1_772_236_800_000) // Jan 31 → Feb 28
        #expect(schedule.periodEnd(try duration("P1Y"), from: Self.start) == 1_798_804_800_000)
        #expect(schedule.maximumRenewals == nil)
        #expect(schedule.supportsBillingRetry)
        #expect(schedule.usesCalendar)
        #expect(schedule.wallTimeLabel(of: try duration("P1Y6M")) == "1 year 6 months")
    }

    // MARK: Choices where Apple is silent

    @Test("choice: periods outside Apple's table (offers) at monthlyRenewalEveryFiveMinutes", arguments: [
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P2W", "6 minutes", 360_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P7D", "3 minutes", 180_000),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P3D", "1 minute 17 seconds 143 milliseconds", 77_143),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P1D", "25 seconds 714 milliseconds", 25_714),
        Row(.xcode(.monthlyRenewalEveryFiveMinutes), "P1Y6M", "1 hour 30 minutes", 5_400_000),
        Row(.sandbox(.monthlyRenewalEveryOneHour), "P3D", "6 minutes 25 seconds 714 milliseconds", 385_714),
    ])
    func offerPeriods(row: Row) throws {
        let period = try duration(row.period)
        #expect(row.schedule.wallTime(of: period, from: Self.start) == row.ms)
        #expect(row.schedule.wallTimeLabel(of: period) == row.words)
    }

    @Test("choice: deprecated …IsOneDay rates last the named time a day, a month 30 days, a year 365", arguments: [
        Row(.xcode(.oneSecondIsOneDay), "P1W", "7 seconds", 7_000),
        Row(.xcode(.oneSecondIsOneDay), "P1M", "30 seconds", 30_000),
        Row(.xcode(.oneSecondIsOneDay), "P1Y", "6 minutes 5 seconds", 365_000),
        Row(.xcode(.thirtySecondsIsOneDay), "P1M", "15 minutes", 900_000),
        Row(.xcode(.oneMinuteIsOneDay), "P1Y", "6 hours 5 minutes", 21_900_000),
        Row(.xcode(.fiveMinutesIsOneDay), "P1W", "35 minutes", 2_100_000),
        Row(.xcode(.thirtyMinutesIsOneDay), "P1M", "15 hours", 54_000_000),
        Row(.xcode(.oneHourIsOneDay), "P1M", "1 day 6 hours", 108_000_000),
    ])
    func deprecatedLinear(row: Row) throws {
        let period = try duration(row.period)
        #expect(row.schedule.wallTime(of: period, from: Self.start) == row.ms)
        #expect(row.schedule.wallTimeLabel(of: period) == row.words)
    }

    @Test("choice: deprecated rates scale realtime's 6-day and 16-day grace and 60-day billing retry")
    func deprecatedGrace() throws {
        let schedule = RenewalSchedule.xcode(.oneSecondIsOneDay)
        #expect(schedule.gracePeriod(days: 16, for: try duration("P1W")) == 6_000)
        #expect(schedule.gracePeriod(days: 16, for: try duration("P1M")) == 16_000)
        #expect(schedule.billingRetryPeriod(for: try duration("P1M")) == 60_000)
        #expect(RenewalSchedule.xcode(.oneHourIsOneDay).billingRetryPeriod(for: try duration("P1M")) == 216_000_000)
    }

    @Test("choice: Xcode only switches the grace period on, so the app's 3 or 28 days do not change Apple's figure")
    func xcodeIgnoresGraceDays() throws {
        let schedule = RenewalSchedule.xcode(.monthlyRenewalEveryFiveMinutes)
        #expect(schedule.gracePeriod(days: 3, for: try duration("P1M")) == 150_000)
        #expect(schedule.gracePeriod(days: 28, for: try duration("P1M")) == 150_000)
        #expect(RenewalSchedule.xcode(.realTime).gracePeriod(days: 28, for: try duration("P1M")) == 1_382_400_000)
    }

    @Test("choice: Sandbox grace period and billing retry are those of the Xcode rate of the same speed, scaled by days / 16",
          arguments: [
              (RenewalSchedule.SandboxRenewalRate.monthlyRenewalEveryFiveMinutes, 16, "P1M", Int64(150_000)),
              (.monthlyRenewalEveryFiveMinutes, 28, "P1M", 262_500),
              (.monthlyRenewalEveryFiveMinutes, 3, "P1M", 28_125),
              (.monthlyRenewalEveryFiveMinutes, 16, "P1W", 154_000),
              (.monthlyRenewalEveryFiveMinutes, 3, "P1W", 77_000),
              (.monthlyRenewalEveryOneHour, 16, "P1M", 1_800_000),
              (.monthlyRenewalEveryOneHour, 16, "P1W", 771_000),
              (.monthlyRenewalEveryFifteenMinutes, 16, "P1M", 450_000),
              (.monthlyRenewalEveryThirtyMinutes, 16, "P1W", 514_000),
              (.monthlyRenewalEveryThreeMinutes, 16, "P1M", 90_000),
              (.monthlyRenewalEveryThreeMinutes, 16, "P1W", 154_000),
          ])
    func sandboxGrace(rate: RenewalSchedule.SandboxRenewalRate, days: Int, period: String, ms: Int64) throws {
        #expect(RenewalSchedule.sandbox(rate).gracePeriod(days: days, for: try duration(period)) == ms)
    }

    @Test("choice: Sandbox billing retry is the Xcode figure of the same speed (sandbox:3: 6 minutes)", arguments: [
        (RenewalSchedule.SandboxRenewalRate.monthlyRenewalEveryThreeMinutes, Int64(360_000)),
        (.monthlyRenewalEveryFiveMinutes, 600_000), (.monthlyRenewalEveryFifteenMinutes, 1_800_000),
        (.monthlyRenewalEveryThirtyMinutes, 3_600_000), (.monthlyRenewalEveryOneHour, 7_200_000),
    ])
    func sandboxBillingRetry(rate: RenewalSchedule.SandboxRenewalRate, ms: Int64) throws {
        #expect(RenewalSchedule.sandbox(rate).billingRetryPeriod(for: try duration("P1M")) == ms)
    }

    @Test("choice: StoreKit Testing in Xcode has no renewal limit", arguments: RenewalSchedule.TimeRate.allCases)
    func xcodeNoLimit(rate: RenewalSchedule.TimeRate) {
        #expect(RenewalSchedule.xcode(rate).maximumRenewals == nil)
        #expect(RenewalSchedule.xcode(rate).supportsBillingRetry)
    }

    // MARK: Text form

    @Test("--clock text form: the canonical forms round-trip", arguments: ["real", "xcode:1003", "sandbox:5", "testflight", "xcode:0", "sandbox:60"])
    func roundTrip(text: String) throws {
        let schedule = try RenewalSchedule.parse(text, storeKitTimeRate: nil).get()
        #expect(schedule.description == text)
        #expect(RenewalSchedule(text) == schedule)
    }

    @Test("--clock text form: every schedule parses back from its description")
    func everyScheduleRoundTrips() throws {
        #expect(RenewalSchedule.allSchedules.count == 25)
        #expect(Set(RenewalSchedule.allSchedules.map(\.description)).count == 25)
        for schedule in RenewalSchedule.allSchedules {
            #expect(try RenewalSchedule.parse(schedule.description, storeKitTimeRate: 1005).get() == schedule)
        }
    }

    @Test("--clock xcode takes the .storekit file's _timeRate; timeRate-swift.property: realTime when unset")
    func xcodeFromStoreKitFile() throws {
        #expect(try RenewalSchedule.parse("xcode", storeKitTimeRate: 13).get() == .xcode(.monthlyRenewalEveryFiveMinutes))
        #expect(try RenewalSchedule.parse("xcode", storeKitTimeRate: 1001).get().description == "xcode:1001")
        #expect(try RenewalSchedule.parse("xcode", storeKitTimeRate: nil).get() == .xcode(.realTime))
        #expect(try RenewalSchedule.parse("XCODE:13", storeKitTimeRate: 0).get() == .xcode(.monthlyRenewalEveryFiveMinutes))
        #expect(try RenewalSchedule.parse("xcode:13", storeKitTimeRate: 1005).get() == .xcode(.monthlyRenewalEveryFiveMinutes))
    }

    @Test("--clock xcode with a _timeRate SKTestSession.h does not define is an error naming it")
    func xcodeUnknownStoreKitRate() {
        guard case .failure(let error) = RenewalSchedule.parse("xcode", storeKitTimeRate: 7) else {
            Issue.record("_timeRate 7 accepted")
            return
        }
        #expect(error.code == .unknownStoreKitTimeRate)
        #expect(error.message.contains("_timeRate 7"))
        #expect(error.message.contains("13, 15, 1000"))
    }

    @Test("--clock xcode:<n> rejects values SKTestSession.h does not define and lists the raw values",
          arguments: ["xcode:7", "xcode:14", "xcode:1006", "xcode:-1", "xcode:", "xcode:five", "xcode: 5", "xcode:99999999999"])
    func xcodeUnknownRate(text: String) {
        guard case .failure(let error) = RenewalSchedule.parse(text, storeKitTimeRate: 0) else {
            Issue.record("\(text) accepted")
            return
        }
        #expect(error.code == .unknownTimeRate)
        #expect(error.text == text)
        #expect(error.message.contains("0, 1 (deprecated), 2 (deprecated)"))
        #expect(error.message.contains("10, 11, 12, 13, 15, 1000, 1001, 1002, 1003, 1004, 1005"))
        #expect(RenewalSchedule(text) == nil)
    }

    @Test("--clock sandbox:<n> rejects rates App Store Connect does not offer and lists 3, 5, 15, 30, 60",
          arguments: ["sandbox:1", "sandbox:10", "sandbox:45", "sandbox:10m", "sandbox:2h", "sandbox:m", "sandbox:5mm", "sandbox:", "sandbox:0005x"])
    func sandboxUnknownRate(text: String) {
        guard case .failure(let error) = RenewalSchedule.parse(text, storeKitTimeRate: nil) else {
            Issue.record("\(text) accepted")
            return
        }
        #expect(error.code == .unsupportedSandboxRate)
        #expect(error.message.contains("3, 5, 15, 30, 60"))
        #expect(RenewalSchedule(text) == nil)
    }

    @Test("--clock sandbox:<rate> also takes the spelling of sandbox set --renewal-rate (5m, 1h)",
          arguments: [("sandbox:3m", 3), ("sandbox:5m", 5), ("sandbox:15M", 15), ("sandbox:30m", 30), ("sandbox:60m", 60), ("sandbox:1h", 60), ("sandbox:60", 60)])
    func sandboxRateSpelling(text: String, minutes: Int) throws {
        let schedule = try RenewalSchedule.parse(text, storeKitTimeRate: nil).get()
        #expect(schedule == .sandbox(try #require(RenewalSchedule.SandboxRenewalRate(rawValue: minutes))))
    }

    @Test("--clock unknown environments list every accepted form",
          arguments: ["production", "", "testflight:2", "real:1", "sandbox5", "xcode13"])
    func unknownEnvironment(text: String) {
        guard case .failure(let error) = RenewalSchedule.parse(text, storeKitTimeRate: nil) else {
            Issue.record("\(text) accepted")
            return
        }
        #expect(error.code == .unknownEnvironment)
        #expect(error.message.contains("real, xcode, xcode:<SKTestSession.TimeRate raw value>, sandbox, sandbox:<3|5|15|30|60> or testflight"))
    }

    // MARK: Labels and sources

    @Test("wall-time labels use the wording of Apple's tables", arguments: [
        (Int64(771_000), "12 minutes 51 seconds"), (5_400_000, "1 hour 30 minutes"), (86_400_000, "1 day"),
        (60_000, "1 minute"), (0, "0 seconds"), (90_061_001, "1 day 1 hour 1 minute 1 second 1 millisecond"),
        (5_184_000_000, "60 days"),
    ])
    func labels(ms: Int64, words: String) {
        #expect(RenewalSchedule.label(milliseconds: ms) == words)
    }

    @Test("every schedule cites pages of developer.apple.com")
    func sources() {
        for schedule in RenewalSchedule.allSchedules {
            #expect(!schedule.sources.isEmpty, "\(schedule)")
            #expect(schedule.sources.allSatisfy { $0.url.hasPrefix("https://developer.apple.com/") }, "\(schedule)")
            #expect(!schedule.summary.isEmpty, "\(schedule)")
        }
        #expect(RenewalSchedule.xcode(.monthlyRenewalEveryFiveMinutes).sources.map(\.url).contains(
            "https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum/monthlyrenewaleveryfiveminutes"))
        #expect(RenewalSchedule.testFlight.sources.map(\.url) == [
            "https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight"])
        #expect(RenewalSchedule.sandbox(.default).summary == "Sandbox, monthly renewal every 5 minutes (default)")
        #expect(RenewalSchedule.xcode(.oneSecondIsOneDay).summary == "StoreKit Testing in Xcode, oneSecondIsOneDay (deprecated)")
    }

    @Test("only calendar schedules (real, xcode:0) depend on the start date")
    func calendarOnly() {
        let calendar = RenewalSchedule.allSchedules.filter(\.usesCalendar).map(\.description)
        #expect(calendar == ["real", "xcode:0"])
    }
}
