
/// How long subscription periods, grace periods and billing retry last in the environment a run models.
///
/// `real` is the App Store's calendar; StoreKit Testing in Xcode (`timeRate`), Sandbox and TestFlight compress
/// time. Transactions carry dates in the modelled environment's time, as those environments write them, so in
/// a compressed environment `periodEnd - start` is also the wall time a tester waits.
///
/// The text form (``description``, ``parse(_:storeKitTimeRate:)``) is `real`, `xcode:<n>`, `sandbox:<n>` or
/// `testflight`. Every figure comes from one of Apple's pages, named by ``sources``; where Apple is silent the
/// doc comment of the rule says what this type chose.
public struct RenewalSchedule: Sendable, Hashable, CustomStringConvertible {
    /// Which environment's clock.
    public enum Kind: Sendable, Hashable {
        /// Production: calendar periods.
        case real
        /// StoreKit Testing in Xcode at an `SKTestSession.TimeRate`.
        case xcode(TimeRate)
        /// Sandbox at a tester's subscription renewal rate.
        case sandbox(SandboxRenewalRate)
        /// TestFlight: every subscription renews once a day.
        case testFlight
    }

    public var kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// Production's calendar.
    public static let real = RenewalSchedule(.real)

    /// TestFlight's daily renewals.
    public static let testFlight = RenewalSchedule(.testFlight)

    /// StoreKit Testing in Xcode at `rate`.
    public static func xcode(_ rate: TimeRate) -> RenewalSchedule {
        RenewalSchedule(.xcode(rate))
    }

    /// Sandbox at a tester's renewal `rate`.
    public static func sandbox(_ rate: SandboxRenewalRate) -> RenewalSchedule {
        RenewalSchedule(.sandbox(rate))
    }

    /// Every schedule the text form accepts, in the order `real`, each Xcode time rate by raw value, each
    /// Sandbox rate, `testflight`: the table documentation and help are generated from.
    public static let allSchedules: [RenewalSchedule] =
        [.real] + TimeRate.allCases.map { .xcode($0) } + SandboxRenewalRate.allCases.map { .sandbox($0) } + [.testFlight]

    /// The text form used by `--clock` and in evidence: `real`, `xcode:1003`, `sandbox:5` or `testflight`.
    public var description: String {
        switch kind {
        case .real: "real"
        case .xcode(let rate): "xcode:\(rate.rawValue)"
        case .sandbox(let rate): "sandbox:\(rate.rawValue)"
        case .testFlight: "testflight"
        }
    }

    // MARK: Rules

    /// The end of one subscription period that starts at `start` (ms since 1970).
    ///
    /// - `real` and `xcode:0` (`realTime`): calendar arithmetic in UTC, ``ISO8601Duration/added(to:)``.
    /// - Scaled Xcode rates and Sandbox: Apple's table of renewal time per period (``TimeRate``,
    ///   ``SandboxRenewalRate``). Apple's tables grow exactly with the number of months (2, 3, 6 and 12 months
    ///   take 2, 3, 6 and 12 times the monthly time), so years and months count as months of the monthly time.
    ///   Apple gives no row for other lengths (offer periods such as `P3D` or `P2W`); this type chose: weeks
    ///   take the weekly time each, days a seventh of the weekly time each, hours, minutes and seconds the
    ///   monthly time per 30 days. Results are rounded to the millisecond.
    /// - Fixed Xcode rates (`oneRenewalEvery…`): the fixed time, whatever the period (offer periods included).
    /// - Deprecated Xcode rates (`…IsOneDay`): Apple gives no table; this type chose to take the name literally,
    ///   one day lasting the named time, with a month counted as 30 days and a year as 365.
    /// - `testflight`: one day, whatever the period.
    public func periodEnd(_ period: ISO8601Duration, from start: Int64) -> Int64 {
        switch rule {
        case .calendar:
            return period.added(to: start)
        case .scaled(let table):
            return start + table.length(of: period)
        case .fixed(let table):
            return start + table.renewal
        case .linear(let dayLength):
            let days = Int64(period.years) * 365 + Int64(period.months) * 30 + Int64(period.weeks) * 7 + Int64(period.days)
            return start + days * dayLength + Self.dividedRounded(Self.seconds(of: period) * dayLength, by: 86_400)
        }
    }

    /// The billing grace period, ms, for a subscription of `period` when the app chose `days` (3, 16, 28).
    ///
    /// - `real`: `days`, at most 6 for weekly subscriptions.
    ///   Apple: https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions
    /// - `xcode:<n>`: Apple's table for the time rate (``TimeRate``). StoreKit Testing in Xcode only switches the
    ///   grace period on or off (`billingGracePeriodIsEnabled`), so `days` is not used.
    /// - `sandbox:<n>`: App Store Connect lets the app choose 3, 16 or 28 days for Sandbox too, and the tester's
    ///   rate "also determines the length of ... Billing Grace Period"; Apple's figures per rate were not
    ///   available, so this type chose the figures Apple gives for the Xcode rate of the same speed (Apple:
    ///   the Xcode time rates "match those in the sandbox environment") as the 16-day (weekly: 6-day) length,
    ///   scaled by `days / 16` (weekly: `min(days, 6) / 6`).
    /// - `testflight`: Production's lengths; a TestFlight purchase never enters a billing grace period
    ///   (``supportsBillingRetry``).
    public func gracePeriod(days: Int, for period: ISO8601Duration) -> Int64 {
        let weekly = Self.isWeekly(period)
        switch kind {
        case .real, .testFlight:
            return Int64(weekly ? min(days, 6) : days) * 86_400_000
        case .sandbox(let rate):
            let table = rate.table
            return weekly
                ? Self.dividedRounded(table.weeklyGrace * Int64(min(days, 6)), by: 6)
                : Self.dividedRounded(table.grace * Int64(days), by: 16)
        case .xcode:
            switch rule {
            case .calendar: return (weekly ? 6 : 16) * 86_400_000
            case .scaled(let table): return weekly ? table.weeklyGrace : table.grace
            case .fixed(let table): return table.grace
            case .linear(let dayLength): return (weekly ? 6 : 16) * dayLength
            }
        }
    }

    /// The billing retry period, ms: how long the App Store tries to renew after a billing failure.
    ///
    /// - `real` and `xcode:0`: 60 days.
    ///   Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/inbillingretryperiod
    ///   and https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum/realtime
    /// - Other Xcode rates: Apple's table for the time rate (``TimeRate``); deprecated rates (no table): 60 of
    ///   their days (this type's choice).
    /// - `sandbox:<n>`: the rate "also determines the length of Billing Retry"; Apple's figures per rate were not
    ///   available, so this type chose the figure Apple gives for the Xcode rate of the same speed, which is
    ///   twice the monthly renewal time at every scaled Xcode rate (`sandbox:3`: 6 minutes).
    /// - `testflight`: Production's 60 days; TestFlight cannot enter billing retry (``supportsBillingRetry``).
    public func billingRetryPeriod(for period: ISO8601Duration) -> Int64 {
        switch rule {
        case .calendar: return 60 * 86_400_000
        case .scaled(let table): return table.billingRetry
        case .fixed(let table): return table.billingRetry
        case .linear(let dayLength): return 60 * dayLength
        }
    }

    /// The longest lapse of paid service, ms, that keeps a subscription's `recentSubscriptionStartDate`: a
    /// resubscription after a longer gap starts a new run.
    ///
    /// - `real`: 60 days; `sandbox:<n>` and `testflight` (TestFlight uses the sandbox environment): 10 minutes.
    ///   Apple: https://developer.apple.com/documentation/appstoreserverapi/recentsubscriptionstartdate
    /// - `xcode:<n>`: Apple gives no figure; this type chose the billing retry period of the time rate (60 days
    ///   in real time), the other 60-day span of a subscription's life.
    public func recentStartLapseLimit(for period: ISO8601Duration) -> Int64 {
        switch kind {
        case .real: 60 * 86_400_000
        case .sandbox, .testFlight: 10 * 60_000
        case .xcode: billingRetryPeriod(for: period)
        }
    }

    /// The Apple environment whose clock this is: `nil` for Production's calendar.
    public var environment: EnvironmentKind? {
        switch kind {
        case .real: nil
        case .xcode: .xcode
        case .sandbox: .sandbox
        case .testFlight: .testflight
        }
    }

    /// How many renewals the environment performs before auto-renew stops, if it limits them
    /// (``EnvironmentKind/renewalLimit``).
    public var maximumRenewals: Int? { environment?.renewalLimit }

    /// Whether a renewal can fail with a billing issue and enter billing retry (and a billing grace period):
    /// not in TestFlight (``EnvironmentKind/billingRetryUnsupportedReason``).
    public var supportsBillingRetry: Bool {
        billingRetryUnsupportedReason == nil
    }

    /// Why the environment cannot enter billing retry, with what to use instead; `nil` when it can.
    public var billingRetryUnsupportedReason: String? { environment?.billingRetryUnsupportedReason }

    /// The Apple environment a clock's text form models (`sandbox`, `sandbox:<rate>`, `testflight`, `xcode…`), read
    /// leniently from evidence: `nil` for `real`, no clock, or text that names no environment.
    public static func environment(ofClock clock: String?) -> EnvironmentKind? {
        let text = clock?.lowercased() ?? ""
        for environment in [EnvironmentKind.sandbox, .testflight, .xcode] where text == environment.name || text.hasPrefix(environment.name + ":") {
            return environment
        }
        return nil
    }

    /// Whether periods follow the calendar (`real`, `xcode:0`) rather than a compressed clock, so that their
    /// length depends on the start date.
    public var usesCalendar: Bool {
        if case .calendar = rule { return true }
        return false
    }

    // MARK: Wall time

    /// How long a period starting at `start` (ms since 1970) takes, ms, in the modelled environment: the wall
    /// time a tester waits. Transactions carry the environment's compressed dates, so this is
    /// `periodEnd(period, from: start) - start`; only calendar schedules (``usesCalendar``) depend on `start`.
    public func wallTime(of period: ISO8601Duration, from start: Int64) -> Int64 {
        periodEnd(period, from: start) - start
    }

    /// How long a period takes in words, for plans: "5 minutes", "1 hour 30 minutes", "1 day"; the period
    /// itself ("1 month", "2 weeks") for calendar schedules, whose periods vary in length.
    public func wallTimeLabel(of period: ISO8601Duration) -> String {
        if usesCalendar {
            let parts: [(Int, String)] = [(period.years, "year"), (period.months, "month"), (period.weeks, "week"),
                                          (period.days, "day"), (period.hours, "hour"), (period.minutes, "minute"),
                                          (period.seconds, "second")]
            let words = parts.filter { $0.0 > 0 }.map { Self.count($0.0, $0.1) }
            return words.isEmpty ? "0 seconds" : words.joined(separator: " ")
        }
        return Self.label(milliseconds: periodEnd(period, from: 0))
    }

    /// A length in words, the way Apple's tables write it: "2 minutes 34 seconds", "1 hour", "1 day";
    /// milliseconds only when not a whole second.
    public static func label(milliseconds: Int64) -> String {
        guard milliseconds > 0 else { return "0 seconds" }
        let parts: [(Int64, String)] = [(milliseconds / 86_400_000, "day"), (milliseconds / 3_600_000 % 24, "hour"),
                                        (milliseconds / 60_000 % 60, "minute"), (milliseconds / 1000 % 60, "second"),
                                        (milliseconds % 1000, "millisecond")]
        return parts.filter { $0.0 > 0 }.map { count(Int($0.0), $0.1) }.joined(separator: " ")
    }

    // MARK: Sources

    /// A page of Apple's documentation one of a schedule's rules comes from.
    public struct Source: Sendable, Hashable {
        /// The rule, e.g. "renewal time per period".
        public var rule: String
        public var url: String

        public init(rule: String, url: String) {
            self.rule = rule
            self.url = url
        }
    }

    /// The environment and rate in words, e.g. "StoreKit Testing in Xcode, monthlyRenewalEveryFiveMinutes".
    public var summary: String {
        switch kind {
        case .real: "Production: calendar periods"
        case .xcode(let rate): "StoreKit Testing in Xcode, \(rate.name)\(rate.isDeprecated ? " (deprecated)" : "")"
        case .sandbox(let rate):
            "Sandbox, monthly renewal every \(Self.label(milliseconds: rate.table.monthly))"
                + (rate == .default ? " (default)" : "")
        case .testFlight: "TestFlight: every subscription renews daily"
        }
    }

    /// The pages of Apple's documentation this schedule's rules come from.
    public var sources: [Source] {
        switch kind {
        case .real:
            return [
                Source(rule: "subscription periods", url: "https://developer.apple.com/documentation/storekit/product/subscriptionperiod"),
                Source(rule: "billing grace period of 3, 16 or 28 days, 6 at most for weekly subscriptions",
                       url: "https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions"),
                Source(rule: "billing retry period of 60 days",
                       url: "https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/inbillingretryperiod"),
            ]
        case .xcode(let rate):
            return [
                Source(rule: "raw values and deprecations (SKTestTimeRate in SKTestSession.h)",
                       url: "https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum"),
                Source(rule: rate.isDeprecated ? "what one day lasts" : "renewal, grace period and billing retry times",
                       url: rate.documentationURL),
            ]
        case .sandbox(let rate):
            var sources = [
                Source(rule: "renewal rates; they also set billing retry and grace period lengths",
                       url: "https://developer.apple.com/help/app-store-connect/test-in-app-purchases/manage-sandbox-apple-account-settings"),
                Source(rule: "renewal time per period for each renewal rate",
                       url: "https://developer.apple.com/help/app-store-connect/test-in-app-purchases-main/test-in-app-purchases"),
                Source(rule: "at most \(EnvironmentKind.sandbox.renewalLimit ?? 0) renewals",
                       url: EnvironmentKind.sandbox.limitsPage ?? ""),
                Source(rule: "renewal rates (subscriptionRenewalRate)",
                       url: "https://developer.apple.com/documentation/appstoreconnectapi/patch-v2-sandboxtesters-_id_"),
            ]
            if let equivalent = rate.xcodeEquivalent {
                sources.append(Source(rule: "grace period and billing retry times of the Xcode rate of the same speed",
                                      url: equivalent.documentationURL))
            }
            return sources
        case .testFlight:
            return [
                Source(rule: "daily renewals, at most \(EnvironmentKind.testflight.renewalLimit ?? 0); no billing retry",
                       url: EnvironmentKind.testFlightPage),
            ]
        }
    }

    // MARK: Implementation

    /// How the schedule turns a period into a length.
    enum Rule: Sendable, Hashable {
        /// Calendar arithmetic.
        case calendar
        /// Apple's table per period, scaled from the weekly and monthly times.
        case scaled(ScaledTable)
        /// One length for every period.
        case fixed(FixedTable)
        /// One day lasts `dayLength` ms.
        case linear(dayLength: Int64)
    }

    var rule: Rule {
        switch kind {
        case .real: .calendar
        case .xcode(let rate): rate.rule
        case .sandbox(let rate): .scaled(rate.table)
        case .testFlight: .fixed(Self.testFlightTable)
        }
    }

    /// TestFlight: "Each subscription is renewed daily ... regardless of the subscription's duration." Grace
    /// period and billing retry are Production's, never reached (``supportsBillingRetry``).
    static let testFlightTable = FixedTable(renewal: 86_400_000, grace: 16 * 86_400_000, billingRetry: 60 * 86_400_000)

    /// Renewal, grace period and billing retry times of a scaled rate, ms, as Apple's tables give them.
    struct ScaledTable: Sendable, Hashable {
        var weekly: Int64
        var monthly: Int64
        var weeklyGrace: Int64
        var grace: Int64
        var billingRetry: Int64

        func length(of period: ISO8601Duration) -> Int64 {
            let months = Int64(period.years) * 12 + Int64(period.months)
            return months * monthly + Int64(period.weeks) * weekly
                + RenewalSchedule.dividedRounded(Int64(period.days) * weekly, by: 7)
                + RenewalSchedule.dividedRounded(RenewalSchedule.seconds(of: period) * monthly, by: 30 * 86_400)
        }
    }

    /// Renewal, grace period and billing retry times of a fixed rate, ms.
    struct FixedTable: Sendable, Hashable {
        var renewal: Int64
        var grace: Int64
        var billingRetry: Int64
    }

    /// A length in ms from hours, minutes and seconds, as Apple's tables write it.
    static func ms(_ hours: Int64, _ minutes: Int64, _ seconds: Int64) -> Int64 {
        ((hours * 60 + minutes) * 60 + seconds) * 1000
    }

    /// Weekly for Apple's grace period rules: no years or months, at most 7 days.
    static func isWeekly(_ period: ISO8601Duration) -> Bool {
        period.years == 0 && period.months == 0 && period.approximateDays <= 7
    }

    static func seconds(of period: ISO8601Duration) -> Int64 {
        (Int64(period.hours) * 60 + Int64(period.minutes)) * 60 + Int64(period.seconds)
    }

    /// `value / divisor` rounded half up, for non-negative values.
    static func dividedRounded(_ value: Int64, by divisor: Int64) -> Int64 {
        (value + divisor / 2) / divisor
    }

    static func count(_ value: Int, _ unit: String) -> String {
        "\(value) \(unit)\(value == 1 ? "" : "s")"
    }
}
