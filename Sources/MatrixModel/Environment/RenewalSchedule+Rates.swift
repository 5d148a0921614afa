extension RenewalSchedule {
    /// `SKTestSession.TimeRate`: how fast subscriptions renew in StoreKit Testing in Xcode, by raw value, as the
    /// `.storekit` file's `_timeRate` stores it.
    ///
    /// Raw values are those of `SKTestTimeRate` in StoreKitTest's `SKTestSession.h`: 0 and 1–6 in order,
    /// 10–13 in order, 15, and 1000–1005 in order (14 and 7–9 are unused). Each case's renewal, grace period
    /// and billing retry times are the tables on its page under
    /// https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum
    public enum TimeRate: Int, Sendable, Hashable, CaseIterable {
        /// Real time: calendar periods ("a weekly subscription renews in one week"); grace period 6 days (weekly)
        /// or 16 days, billing retry 60 days. Xcode's default.
        case realTime = 0
        /// Deprecated (iOS 14.0–15.2), no replacement: 1 hour represents one day.
        case oneHourIsOneDay = 1
        /// Deprecated (iOS 14.0–15.2), no replacement: 30 minutes represent one day.
        case thirtyMinutesIsOneDay = 2
        /// Deprecated (iOS 14.0–15.2), no replacement: 5 minutes represent one day.
        case fiveMinutesIsOneDay = 3
        /// Deprecated (iOS 14.0–15.2), replaced by ``monthlyRenewalEveryThirtyMinutes``: 1 minute represents one day.
        case oneMinuteIsOneDay = 4
        /// Deprecated (iOS 14.0–15.2), replaced by ``monthlyRenewalEveryFifteenMinutes``: 30 seconds represent one day.
        case thirtySecondsIsOneDay = 5
        /// Deprecated (iOS 14.0–15.2), replaced by ``monthlyRenewalEveryThirtySeconds``: 1 second represents one day.
        case oneSecondIsOneDay = 6
        /// Weekly 15 minutes, monthly 1 hour, 2 months 2 hours, 3 months 3 hours, 6 months 6 hours, yearly
        /// 12 hours; grace period 12 minutes 51 seconds (weekly) or 30 minutes; billing retry 2 hours.
        case monthlyRenewalEveryHour = 10
        /// Weekly 10 minutes, monthly 30 minutes, 2 months 1 hour, 3 months 1 hour 30 minutes, 6 months 3 hours,
        /// yearly 6 hours; grace period 8 minutes 34 seconds (weekly) or 15 minutes; billing retry 1 hour.
        case monthlyRenewalEveryThirtyMinutes = 11
        /// Weekly 5 minutes, monthly 15 minutes, 2 months 30 minutes, 3 months 45 minutes, 6 months 1 hour
        /// 30 minutes, yearly 3 hours; grace period 4 minutes 17 seconds (weekly) or 7 minutes 30 seconds;
        /// billing retry 30 minutes.
        case monthlyRenewalEveryFifteenMinutes = 12
        /// Weekly 3 minutes, monthly 5 minutes, 2 months 10 minutes, 3 months 15 minutes, 6 months 30 minutes,
        /// yearly 1 hour; grace period 2 minutes 34 seconds (weekly) or 2 minutes 30 seconds; billing retry
        /// 10 minutes.
        case monthlyRenewalEveryFiveMinutes = 13
        /// Weekly 10 seconds, monthly 30 seconds, 2 months 1 minute, 3 months 1 minute 30 seconds, 6 months
        /// 3 minutes, yearly 6 minutes; grace period 9 seconds (weekly) or 15 seconds; billing retry 1 minute.
        /// Xcode only: Sandbox has no such rate.
        case monthlyRenewalEveryThirtySeconds = 15
        /// Every period renews in 15 minutes; grace period 15 minutes, billing retry 30 minutes.
        case oneRenewalEveryFifteenMinutes = 1000
        /// Every period renews in 5 minutes; grace period 5 minutes, billing retry 10 minutes.
        case oneRenewalEveryFiveMinutes = 1001
        /// Every period renews in 1 minute; grace period 1 minute, billing retry 2 minutes.
        case oneRenewalEveryMinute = 1002
        /// Every period renews in 30 seconds; grace period 30 seconds, billing retry 1 minute.
        case oneRenewalEveryThirtySeconds = 1003
        /// Every period renews in 10 seconds; grace period 10 seconds, billing retry 20 seconds.
        case oneRenewalEveryTenSeconds = 1004
        /// Every period renews in 2 seconds; grace period 2 seconds, billing retry 4 seconds. Xcode's fastest.
        case oneRenewalEveryTwoSeconds = 1005

        /// Apple's case name, e.g. `monthlyRenewalEveryFiveMinutes`.
        public var name: String {
            String(describing: self)
        }

        /// Whether Apple deprecated the rate (the `…IsOneDay` rates, iOS 14.0–15.2).
        public var isDeprecated: Bool {
            (1...6).contains(rawValue)
        }

        /// The rate `SKTestSession.h` names as the deprecated rate's replacement
        /// (`API_DEPRECATED_WITH_REPLACEMENT`), if any.
        public var replacement: TimeRate? {
            switch self {
            case .oneMinuteIsOneDay: .monthlyRenewalEveryThirtyMinutes
            case .thirtySecondsIsOneDay: .monthlyRenewalEveryFifteenMinutes
            case .oneSecondIsOneDay: .monthlyRenewalEveryThirtySeconds
            default: nil
            }
        }

        /// The page of Apple's documentation for this case.
        public var documentationURL: String {
            "https://developer.apple.com/documentation/storekittest/sktestsession/timerate-swift.enum/\(name.lowercased())"
        }

        /// The rule and table from the case's page.
        var rule: Rule {
            let ms = RenewalSchedule.ms
            switch self {
            case .realTime:
                return .calendar
            case .oneHourIsOneDay: return .linear(dayLength: ms(1, 0, 0))
            case .thirtyMinutesIsOneDay: return .linear(dayLength: ms(0, 30, 0))
            case .fiveMinutesIsOneDay: return .linear(dayLength: ms(0, 5, 0))
            case .oneMinuteIsOneDay: return .linear(dayLength: ms(0, 1, 0))
            case .thirtySecondsIsOneDay: return .linear(dayLength: ms(0, 0, 30))
            case .oneSecondIsOneDay: return .linear(dayLength: ms(0, 0, 1))
            case .monthlyRenewalEveryHour:
                return .scaled(ScaledTable(weekly: ms(0, 15, 0), monthly: ms(1, 0, 0), weeklyGrace: ms(0, 12, 51),
                                           grace: ms(0, 30, 0), billingRetry: ms(2, 0, 0)))
            case .monthlyRenewalEveryThirtyMinutes:
                return .scaled(ScaledTable(weekly: ms(0, 10, 0), monthly: ms(0, 30, 0), weeklyGrace: ms(0, 8, 34),
                                           grace: ms(0, 15, 0), billingRetry: ms(1, 0, 0)))
            case .monthlyRenewalEveryFifteenMinutes:
                return .scaled(ScaledTable(weekly: ms(0, 5, 0), monthly: ms(0, 15, 0), weeklyGrace: ms(0, 4, 17),
                                           grace: ms(0, 7, 30), billingRetry: ms(0, 30, 0)))
            case .monthlyRenewalEveryFiveMinutes:
                return .scaled(ScaledTable(weekly: ms(0, 3, 0), monthly: ms(0, 5, 0), weeklyGrace: ms(0, 2, 34),
                                           grace: ms(0, 2, 30), billingRetry: ms(0, 10, 0)))
            case .monthlyRenewalEveryThirtySeconds:
                return .scaled(ScaledTable(weekly: ms(0, 0, 10), monthly: ms(0, 0, 30), weeklyGrace: ms(0, 0, 9),
                                           grace: ms(0, 0, 15), billingRetry: ms(0, 1, 0)))
            case .oneRenewalEveryFifteenMinutes:
                return .fixed(FixedTable(renewal: ms(0, 15, 0), grace: ms(0, 15, 0), billingRetry: ms(0, 30, 0)))
            case .oneRenewalEveryFiveMinutes:
                return .fixed(FixedTable(renewal: ms(0, 5, 0), grace: ms(0, 5, 0), billingRetry: ms(0, 10, 0)))
            case .oneRenewalEveryMinute:
                return .fixed(FixedTable(renewal: ms(0, 1, 0), grace: ms(0, 1, 0), billingRetry: ms(0, 2, 0)))
            case .oneRenewalEveryThirtySeconds:
                return .fixed(FixedTable(renewal: ms(0, 0, 30), grace: ms(0, 0, 30), billingRetry: ms(0, 1, 0)))
            case .oneRenewalEveryTenSeconds:
                return .fixed(FixedTable(renewal: ms(0, 0, 10), grace: ms(0, 0, 10), billingRetry: ms(0, 0, 20)))
            case .oneRenewalEveryTwoSeconds:
                return .fixed(FixedTable(renewal: ms(0, 0, 2), grace: ms(0, 0, 2), billingRetry: ms(0, 0, 4)))
            }
        }
    }

    /// A Sandbox Apple Account's subscription renewal rate (App Store Connect > Users and Access > Sandbox >
    /// Test Accounts), by the minutes a monthly subscription takes. The default is 5.
    ///
    /// Renewal times per period are App Store Connect's table ("Sandbox subscription time accelerated
    /// options"); for 15, 30 and 60 they equal the Xcode rates `monthlyRenewalEvery…` of the same speed, which
    /// Apple says match Sandbox.
    /// Apple: https://developer.apple.com/help/app-store-connect/test-in-app-purchases/manage-sandbox-apple-account-settings
    /// and https://developer.apple.com/help/app-store-connect/test-in-app-purchases-main/test-in-app-purchases
    public enum SandboxRenewalRate: Int, Sendable, Hashable, CaseIterable {
        /// Weekly 3 minutes, monthly 3 minutes, 2 months 6 minutes, 3 months 9 minutes, 6 months 18 minutes,
        /// yearly 36 minutes. Sandbox only: Xcode has no such rate.
        case monthlyRenewalEveryThreeMinutes = 3
        /// The default. Weekly 3 minutes, monthly 5 minutes, 2 months 10 minutes, 3 months 15 minutes, 6 months
        /// 30 minutes, yearly 1 hour.
        case monthlyRenewalEveryFiveMinutes = 5
        /// Weekly 5 minutes, monthly 15 minutes, 2 months 30 minutes, 3 months 45 minutes, 6 months 1 hour
        /// 30 minutes, yearly 3 hours.
        case monthlyRenewalEveryFifteenMinutes = 15
        /// Weekly 10 minutes, monthly 30 minutes, 2 months 1 hour, 3 months 1 hour 30 minutes, 6 months 3 hours,
        /// yearly 6 hours.
        case monthlyRenewalEveryThirtyMinutes = 30
        /// Weekly 15 minutes, monthly 1 hour, 2 months 2 hours, 3 months 3 hours, 6 months 6 hours, yearly
        /// 12 hours.
        case monthlyRenewalEveryOneHour = 60

        /// App Store Connect's default rate: "1 month = 5 minutes".
        public static let `default` = SandboxRenewalRate.monthlyRenewalEveryFiveMinutes

        /// The App Store Connect API's `subscriptionRenewalRate` value, e.g. `MONTHLY_RENEWAL_EVERY_FIVE_MINUTES`.
        /// Apple: https://developer.apple.com/documentation/appstoreconnectapi/patch-v2-sandboxtesters-_id_
        public var subscriptionRenewalRate: String {
            switch self {
            case .monthlyRenewalEveryThreeMinutes: "MONTHLY_RENEWAL_EVERY_THREE_MINUTES"
            case .monthlyRenewalEveryFiveMinutes: "MONTHLY_RENEWAL_EVERY_FIVE_MINUTES"
            case .monthlyRenewalEveryFifteenMinutes: "MONTHLY_RENEWAL_EVERY_FIFTEEN_MINUTES"
            case .monthlyRenewalEveryThirtyMinutes: "MONTHLY_RENEWAL_EVERY_THIRTY_MINUTES"
            case .monthlyRenewalEveryOneHour: "MONTHLY_RENEWAL_EVERY_ONE_HOUR"
            }
        }

        /// The Xcode rate of the same speed, whose grace period and billing retry times Sandbox is modelled with.
        public var xcodeEquivalent: TimeRate? {
            switch self {
            case .monthlyRenewalEveryThreeMinutes: nil
            case .monthlyRenewalEveryFiveMinutes: .monthlyRenewalEveryFiveMinutes
            case .monthlyRenewalEveryFifteenMinutes: .monthlyRenewalEveryFifteenMinutes
            case .monthlyRenewalEveryThirtyMinutes: .monthlyRenewalEveryThirtyMinutes
            case .monthlyRenewalEveryOneHour: .monthlyRenewalEveryHour
            }
        }

        /// Renewal times from App Store Connect's table. Grace period and billing retry: Apple's figures per
        /// Sandbox rate were not available, so this type chose those of ``xcodeEquivalent``; for 3 minutes,
        /// which has none, the weekly grace of the 5-minute rate (both renew a weekly subscription in 3 minutes)
        /// and, as at every scaled Xcode rate, half the monthly time as grace and twice it as billing retry.
        var table: ScaledTable {
            if let equivalent = xcodeEquivalent, case .scaled(let table) = equivalent.rule {
                return table
            }
            let ms = RenewalSchedule.ms
            return ScaledTable(weekly: ms(0, 3, 0), monthly: ms(0, 3, 0), weeklyGrace: ms(0, 2, 34),
                               grace: ms(0, 1, 30), billingRetry: ms(0, 6, 0))
        }
    }
}
