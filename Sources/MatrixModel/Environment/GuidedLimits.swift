/// A documented limit of Sandbox or TestFlight: something a person with a device cannot make the App Store do
/// there. A guided run skips the step (and the rest of its case) with the limit's name in the evidence
/// (``EvidenceRecord/environmentLimit``), `matrix plan` predicts the same skips, and `matrix compare` explains
/// the difference with the reference as a known environment divergence. One list, so that the three agree.
///
/// Apple: https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription,
/// https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
public enum GuidedLimit: String, Sendable, Hashable, Codable, CaseIterable {
    /// A renewal past the environment's limit: 12 in Sandbox, 6 in TestFlight (``EnvironmentKind/renewalLimit``).
    case renewalLimit
    /// Billing retry and the billing grace period with a TestFlight tester's own Apple Account
    /// (``EnvironmentKind/billingRetryUnsupportedReason``).
    case billingRetry
    /// A purchase that must fail, with a TestFlight tester's own Apple Account.
    case failedPurchase
    /// An interrupted purchase, with a TestFlight tester's own Apple Account.
    case interruptedPurchase
    /// Making one StoreKit call fail on demand (`failNext`), which only StoreKit Testing in Xcode's
    /// `setSimulatedError` and the embedded environments do.
    case failNext
    /// Answering an Ask to Buy request (approve or decline).
    case askToBuyAnswer
    /// Ending a subscription on demand (`expire`).
    case expire
    /// Reversing a refund.
    case reverseRefund
    /// Taking a product off sale for testers only.
    case removeFromSale
    /// Terminating the app at a precise point of its transaction handling.
    case preciseTermination
    /// The case models another environment's clock (`store.clock`): it runs there, not here.
    case otherClock

    /// The limit in one sentence, for `matrix compare` and the docs.
    public var summary: String {
        switch self {
        case .renewalLimit:
            "Sandbox renews an auto-renewable subscription up to \(EnvironmentKind.sandbox.renewalLimit ?? 0) times and TestFlight up to "
                + "\(EnvironmentKind.testflight.renewalLimit ?? 0) times; then auto-renew stops and the subscription expires."
        case .billingRetry:
            "TestFlight cannot enter or leave billing retry (or a billing grace period); test those with a Sandbox Apple Account."
        case .failedPurchase:
            "A TestFlight purchase with the tester's own Apple Account cannot be made to fail: that needs a Sandbox Apple Account."
        case .interruptedPurchase:
            "A TestFlight purchase with the tester's own Apple Account cannot be interrupted: Interrupt Purchases is a Sandbox "
                + "Apple Account setting."
        case .failNext:
            "A tester cannot make one StoreKit call fail on demand; StoreKit Testing in Xcode (setSimulatedError) and the "
                + "embedded environments can."
        case .askToBuyAnswer:
            "Sandbox only simulates an Ask to Buy request; Apple documents answering it in StoreKit Testing in Xcode only."
        case .expire:
            "Sandbox and TestFlight cannot end a subscription on demand; turn auto-renew off and wait for the expiration."
        case .reverseRefund:
            "Apple's refund testing covers approved, declined and prorated refunds; a refund cannot be reversed in Sandbox."
        case .removeFromSale:
            "App Store Connect's availability applies to every customer: there is no Sandbox-only way to take a product off sale."
        case .preciseTermination:
            "A person cannot terminate the app at a precise point of its transaction handling."
        case .otherClock:
            "The case models another environment's clock (store.clock), so it runs in that environment, not in this one."
        }
    }

    /// The Apple page the limit rests on; `nil` where Apple is silent and the limit is this project's reading
    /// (a product's availability, a process's termination, a case's clock).
    public var source: String? {
        switch self {
        case .renewalLimit: EnvironmentKind.sandbox.limitsPage
        case .billingRetry: EnvironmentKind.testFlightPage
        case .failedPurchase: SandboxHowTo.billingIssue.source
        case .interruptedPurchase: SandboxHowTo.interruptedPurchase.source
        case .failNext: "https://developer.apple.com/documentation/storekittest/sktestsession/setsimulatederror(_:forapi:)"
        case .askToBuyAnswer: SandboxHowTo.askToBuy.source
        case .expire: EnvironmentKind.sandbox.limitsPage
        case .reverseRefund: SandboxHowTo.refund.source
        case .removeFromSale, .preciseTermination, .otherClock: nil
        }
    }
}

/// What a person with a device cannot do in Sandbox or TestFlight: the steps a guided run skips as environment
/// limits, and `matrix plan` predicts. One place, so that the plan, the run and `compare` agree; each reason
/// names the Apple page it rests on (``SandboxHowTo`` says how to do the rest).
///
/// Apple: https://developer.apple.com/documentation/storekit/testing-an-auto-renewable-subscription,
/// https://developer.apple.com/help/app-store-connect/test-a-beta-version/testing-subscriptions-and-in-app-purchases-in-testflight
package enum GuidedLimits {
    /// A step's limit and the reason a skip records, `environment limit: …`.
    package struct Skip: Sendable, Hashable {
        package var limit: GuidedLimit
        /// The sentence after `environment limit: `.
        package var detail: String

        /// The reason a skipped record carries.
        package var reason: String { "environment limit: \(detail)" }
    }

    /// Why `environment` (`sandbox` or `testflight`, on `schedule`) cannot perform `step`, or `nil` when it can.
    ///
    /// A `testflight` schedule is a TestFlight build with the tester's own Apple Account: it cannot simulate
    /// billing problems, failed or interrupted purchases (Sandbox Apple Account settings).
    ///
    /// - Parameter renewalsSoFar: renewals the subscription the step renews has had in the case so far.
    package static func skip(for step: Step, environment: EnvironmentKind, schedule: RenewalSchedule, renewalsSoFar: Int) -> Skip? {
        let ownAccount = schedule.kind == .testFlight
        if let failNext = step.failNext {
            return Skip(limit: .failNext, detail: "\(environment) cannot make one \(failNext.call.callName) call fail on demand; StoreKit "
                + "Testing in Xcode (setSimulatedError) and the embedded environments can")
        }
        if step.needsBillingRetry, let reason = schedule.billingRetryUnsupportedReason {
            return Skip(limit: .billingRetry, detail: reason)
        }
        switch step.action {
        case .renew:
            let wanted = renewalsSoFar + (step.count ?? 1)
            if let maximum = schedule.maximumRenewals, wanted > maximum {
                return Skip(limit: .renewalLimit, detail: "\(environment) renews a subscription at most \(maximum) times; this step would be renewal \(wanted)")
            }
        case .expire:
            return Skip(limit: .expire, detail: "\(environment) cannot end a subscription on demand; use disableAutoRenew and advanceTime to expiration")
        case .reverseRefund:
            return Skip(limit: .reverseRefund, detail: "\(environment) cannot reverse a refund: Apple's refund testing covers approved, declined "
                + "and prorated refunds only (\(SandboxHowTo.refund.source))")
        case .approveAskToBuy, .declineAskToBuy:
            return Skip(limit: .askToBuyAnswer, detail: "\(environment) cannot answer an Ask to Buy request: Sandbox only simulates the request "
                + "(\(SandboxHowTo.askToBuy.source)); Apple documents answering it in StoreKit Testing in Xcode only "
                + "(\(SandboxHowTo.xcodeAskToBuy))")
        case .removeFromSale:
            // Availability in App Store Connect is the product's, for every storefront and customer: there is no
            // Sandbox-only switch, so a tester cannot take a live product off sale to test it.
            return Skip(limit: .removeFromSale, detail: "\(environment) has no Sandbox-only way to take a product off sale: App Store "
                + "Connect's availability applies to every customer")
        case .purchase where step.terminate != nil:
            return Skip(limit: .preciseTermination, detail: "a person cannot terminate the app at a precise point of its transaction handling")
        case .purchase where step.outcome == .failed && ownAccount:
            return Skip(limit: .failedPurchase, detail: "a TestFlight purchase with the tester's own Apple Account cannot be made to fail: "
                + "turning off Allow Purchases & Renewals needs a Sandbox Apple Account (\(SandboxHowTo.billingIssue.source))")
        case .purchase where step.outcome == .interrupted && ownAccount:
            return Skip(limit: .interruptedPurchase, detail: "a TestFlight purchase with the tester's own Apple Account cannot be interrupted: "
                + "Interrupt Purchases is a Sandbox Apple Account setting (\(SandboxHowTo.interruptedPurchase.source))")
        default:
            break
        }
        return nil
    }

    /// ``skip(for:environment:schedule:renewalsSoFar:)``'s sentence, without the `environment limit: ` prefix.
    package static func reason(for step: Step, environment: EnvironmentKind, schedule: RenewalSchedule, renewalsSoFar: Int) -> String? {
        skip(for: step, environment: environment, schedule: schedule, renewalsSoFar: renewalsSoFar)?.detail
    }

    /// Why a case whose `store.clock` is `clock` does not run in `environment`: the clock models another
    /// environment (a Sandbox case with a `sandbox:<rate>` clock runs in Sandbox, at the tester's rate);
    /// `nil` when the case runs here.
    package static func clockSkip(_ clock: String?, environment: EnvironmentKind) -> Skip? {
        guard let clock else { return nil }
        let modelled = RenewalSchedule.environment(ofClock: clock)
        guard modelled != environment else { return nil }
        return Skip(limit: .otherClock, detail: "the case models \(modelled?.displayName ?? "Production") (store.clock \"\(clock)\"), "
            + "not \(environment); run it there")
    }
}
