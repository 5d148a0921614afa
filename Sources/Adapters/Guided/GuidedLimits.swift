import MatrixCore
import StoreSimulator

/// What a person with a device cannot do in Sandbox or TestFlight: the steps a guided run skips as environment
/// limits, and `matrix plan` predicts. One place, so that the plan and the run agree.
///
/// Apple: https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription,
/// https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
enum GuidedLimits {
    /// Why `environment` (`sandbox` or `testflight`, on `schedule`) cannot perform `step`, or `nil` when it can.
    ///
    /// - Parameter renewalsSoFar: renewals the subscription the step renews has had in the case so far.
    static func reason(for step: Step, environment: String, schedule: RenewalSchedule, renewalsSoFar: Int) -> String? {
        switch step.action {
        case .failRenewal, .recoverBilling:
            if let reason = schedule.billingRetryUnsupportedReason { return reason }
        case .advanceTime where step.to == .gracePeriodEnd || step.to == .billingRetryEnd:
            if let reason = schedule.billingRetryUnsupportedReason { return reason }
        case .renew:
            let wanted = renewalsSoFar + (step.count ?? 1)
            if let maximum = schedule.maximumRenewals, wanted > maximum {
                return "\(environment) renews a subscription at most \(maximum) times; this step would be renewal \(wanted)"
            }
        case .expire:
            return "\(environment) cannot end a subscription on demand; use disableAutoRenew and advanceTime to expiration"
        case .reverseRefund:
            return "\(environment) cannot reverse a refund"
        case .purchase where step.terminate != nil:
            return "a person cannot terminate the app at a precise point of its transaction handling"
        case .purchase where step.outcome == .failed:
            return "\(environment) cannot make a purchase fail on demand"
        default:
            break
        }
        return nil
    }
}
