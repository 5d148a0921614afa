import MatrixCore

/// How long subscription periods, grace periods and billing retry last in the environment a run models.
///
/// `real` is the App Store's calendar; StoreKit Testing in Xcode (`timeRate`), Sandbox and TestFlight compress
/// time. Transactions carry dates in the modelled environment's time, as those environments write them.
public struct RenewalSchedule: Sendable, Hashable, CustomStringConvertible {
    /// Which environment's clock.
    public enum Kind: Sendable, Hashable {
        /// Production: calendar periods.
        case real
    }

    public var kind: Kind

    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// Production's calendar.
    public static let real = RenewalSchedule(.real)

    /// The text form used by `--clock` and in evidence: `real`.
    public var description: String {
        switch kind {
        case .real: "real"
        }
    }

    /// The end of one subscription period that starts at `start` (ms since 1970).
    public func periodEnd(_ period: ISO8601Duration, from start: Int64) -> Int64 {
        switch kind {
        case .real: period.added(to: start)
        }
    }

    /// The billing grace period, ms, for a subscription of `period` when the app chose `days` (3, 16, 28).
    ///
    /// Weekly subscriptions get at most 6 days.
    /// Apple: https://developer.apple.com/help/app-store-connect/manage-subscriptions/enable-billing-grace-period-for-auto-renewable-subscriptions
    public func gracePeriod(days: Int, for period: ISO8601Duration) -> Int64 {
        let isWeekly = period.years == 0 && period.months == 0 && period.approximateDays <= 7
        let effective = isWeekly ? min(days, 6) : days
        return Int64(effective) * 86_400_000
    }

    /// The billing retry period, ms: the App Store tries to renew for up to 60 days.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/renewalstate/inbillingretryperiod
    public func billingRetryPeriod(for period: ISO8601Duration) -> Int64 {
        60 * 86_400_000
    }

    /// How many renewals the environment performs before auto-renew stops, if it limits them.
    public var maximumRenewals: Int? { nil }
}
