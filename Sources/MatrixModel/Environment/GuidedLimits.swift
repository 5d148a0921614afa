
/// What a person with a device cannot do in Sandbox or TestFlight: the steps a guided run skips as environment
/// limits, and `matrix plan` predicts. One place, so that the plan and the run agree; each reason names the
/// Apple page it rests on (``SandboxHowTo`` says how to do the rest).
///
/// Apple: https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription,
/// https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
package enum GuidedLimits {
    /// Why `environment` (`sandbox` or `testflight`, on `schedule`) cannot perform `step`, or `nil` when it can.
    ///
    /// A `testflight` schedule is a TestFlight build with the tester's own Apple Account: it cannot simulate
    /// billing problems, failed or interrupted purchases (Sandbox Apple Account settings).
    ///
    /// - Parameter renewalsSoFar: renewals the subscription the step renews has had in the case so far.
    package static func reason(for step: Step, environment: EnvironmentKind, schedule: RenewalSchedule, renewalsSoFar: Int) -> String? {
        let ownAccount = schedule.kind == .testFlight
        if let failNext = step.failNext {
            return "\(environment) cannot make one \(failNext.call.callName) call fail on demand; StoreKit Testing in Xcode "
                + "(setSimulatedError) and the embedded environments can"
        }
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
            return "\(environment) cannot reverse a refund: Apple's refund testing covers approved, declined and prorated refunds only "
                + "(\(SandboxHowTo.refund.source))"
        case .approveAskToBuy, .declineAskToBuy:
            return "\(environment) cannot answer an Ask to Buy request: Sandbox only simulates the request "
                + "(\(SandboxHowTo.askToBuy.source)); Apple documents answering it in StoreKit Testing in Xcode only "
                + "(\(SandboxHowTo.xcodeAskToBuy))"
        case .removeFromSale:
            // Availability in App Store Connect is the product's, for every storefront and customer: there is no
            // Sandbox-only switch, so a tester cannot take a live product off sale to test it.
            return "\(environment) has no Sandbox-only way to take a product off sale: App Store Connect's availability "
                + "applies to every customer"
        case .purchase where step.terminate != nil:
            return "a person cannot terminate the app at a precise point of its transaction handling"
        case .purchase where step.outcome == .failed && ownAccount:
            return "a TestFlight purchase with the tester's own Apple Account cannot be made to fail: turning off Allow Purchases & "
                + "Renewals needs a Sandbox Apple Account (\(SandboxHowTo.billingIssue.source))"
        case .purchase where step.outcome == .interrupted && ownAccount:
            return "a TestFlight purchase with the tester's own Apple Account cannot be interrupted: Interrupt Purchases is a "
                + "Sandbox Apple Account setting (\(SandboxHowTo.interruptedPurchase.source))"
        default:
            break
        }
        return nil
    }
}
