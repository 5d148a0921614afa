import MatrixModel

/// What a person does for a step, and what they check after it, in one line each.
struct StepInstruction {
    let matrix: Matrix
    let matrixCase: MatrixCase
    let environment: EnvironmentKind
    let schedule: RenewalSchedule

    /// A product by display name and ID: `Plus Monthly (com.example.plus.monthly)`.
    func product(_ productID: String?) -> String {
        guard let productID else { return subscriptionOfAccount }
        guard let product = matrix.catalog.product(productID) else { return productID }
        let name = [product.displayName, product.referenceName].compactMap { $0 }.first { !$0.isEmpty }
        return name.map { "\($0) (\(productID))" } ?? productID
    }

    var subscriptionOfAccount: String { "the account's subscription" }

    /// The step as an instruction. `waitMs` and `renewalsBefore` (known once the step is modelled) make waits exact.
    func text(_ step: Step, waitMs: Int64? = nil, renewalsBefore: Int? = nil) -> String {
        let who = step.account.map { " as \($0)" } ?? ""
        // "wait 5 minutes" once the step is modelled, "wait" before.
        let wait = waitMs.map { "wait \(RenewalSchedule.label(milliseconds: $0))" } ?? "wait"
        let xcode = environment == .xcode
        switch step.action {
        case .launch: return "launch the app\(who)"
        case .relaunch: return "quit the app and launch it again\(who)"
        case .quit: return "quit the app\(who) (swipe it away)"
        case .reinstall: return "delete the app\(who), install it again and launch it"
        case .switchDevice: return "sign in\(who) on another device (\(step.device ?? "a second device")); do not launch the app yet"
        case .purchase: return purchase(step) + who
        case .approveAskToBuy:
            return "approve the Ask to Buy request for \(product(step.product))" + (xcode ? " in the Transaction Manager" : "")
        case .declineAskToBuy:
            return "decline the Ask to Buy request for \(product(step.product))" + (xcode ? " in the Transaction Manager" : "")
        case .resolveIssue: return "resolve the issue that interrupted the purchase of \(product(step.product))"
        case .restore: return "tap Restore Purchases\(who)"
        case .purchaseOutsideApp: return "buy \(product(step.product)) outside the app (another device or an offer code)\(who)"
        case .renew: return renewal(step, wait: wait, before: renewalsBefore)
        case .advanceTime:
            if let by = step.by { return (waitMs == nil ? "wait \(by)" : wait) + " (\(by), real time)" }
            let subscription = product(step.product)
            switch step.to ?? .expiration {
            case .expiration: return "\(wait) for \(subscription) to reach its expiration date"
            case .gracePeriodEnd: return "\(wait) for the billing grace period of \(subscription) to end"
            case .billingRetryEnd: return "\(wait) for billing retry of \(subscription) to give up"
            }
        case .disableAutoRenew: return "cancel \(product(step.product)): turn auto-renew off in the subscription settings\(who)"
        case .enableAutoRenew: return "turn auto-renew of \(product(step.product)) back on\(who)"
        case .expire: return "expire \(product(step.product)) now" + (xcode ? " in the Transaction Manager" : "")
        case .failRenewal:
            return xcode ? "enable billing issues in the Transaction Manager so the next renewal of \(product(step.product)) fails"
                : "turn off Allow Purchases & Renewals (\(SandboxHowTo.allowPurchasesPath)) so the next renewal of \(product(step.product)) fails"
        case .recoverBilling:
            return xcode ? "resolve the billing issue of \(product(step.product)) in the Transaction Manager"
                : "turn Allow Purchases & Renewals back on so \(product(step.product)) renews"
        case .requestRefund:
            return xcode ? "request a refund of \(product(step.product)) in the app's refund request sheet (Xcode sends no server notification)"
                : "request a refund of \(product(step.product)) in the app's refund request sheet and leave it unanswered (the App Store asks for consumption data)"
        case .refund:
            return xcode ? "refund \(product(step.product)) in the Transaction Manager"
                : "refund \(product(step.product)): in the app's refund request sheet choose any reason and submit (the App Store approves it)"
        case .declineRefund:
            return xcode ? "decline the refund request for \(product(step.product)) in the Transaction Manager"
                : "request a refund of \(product(step.product)) in the app's refund request sheet: Issue > Other, type DECLINE, "
                + "tap Request Refund (the App Store declines it)"
        case .reverseRefund: return "have the refund of \(product(step.product)) reversed"
        case .revokeFamilySharing:
            let member = step.account ?? matrixCase.account
            guard !xcode, let organizer = matrix.account(member)?.familyOrganizer else { return "remove \(member) from the family (Family Sharing ends)" }
            return "remove \(member) from \(organizer)'s \(environment == .sandbox ? "Sandbox Test Family in App Store Connect" : "family") (Family Sharing ends)"
        case .requestPriceIncrease:
            let price = step.price.map { " to \($0)" } ?? ""
            return xcode ? "request consent to a price increase of \(product(step.product))\(price) in the Transaction Manager"
                : "raise the price of \(product(step.product))\(price) in App Store Connect by enough that subscribers must consent "
                + "(it can take up to 1 hour to reach Sandbox)"
        case .consentToPriceIncrease: return "consent to the price increase of \(product(step.product))\(who)"
        case .declinePriceIncrease: return "decline the price increase of \(product(step.product))\(who)"
        case .removeFromSale:
            return xcode ? "remove \(product(step.product)) from sale (Xcode's StoreKit testing has no such switch: delete it from the configuration)"
                : "remove \(product(step.product)) from sale in App Store Connect (Availability: no countries or regions)"
        case .extendRenewalDate:
            return "extend the renewal date of \(product(step.product)) by \(step.extendByDays ?? 0) days with the App Store Server API "
                + "(Extend a Subscription Renewal Date)"
        case .extendRenewalDatesForAllSubscribers:
            return "extend the renewal dates of all active subscribers of \(product(step.product)) by \(step.extendByDays ?? 0) days with the "
                + "App Store Server API (Extend Subscription Renewal Dates for All Active Subscribers)"
        case .requestTestNotification: return "request a test notification with the App Store Server API (Request a Test Notification)"
        case .observe: return "look at the app\(who)"
        }
    }

    func purchase(_ step: Step) -> String {
        var text = "buy \(product(step.product))"
        if let quantity = step.quantity, quantity > 1 { text += " × \(quantity)" }
        if let offer = step.offer { text += " with offer \(offer)" }
        let xcode = environment == .xcode
        switch step.outcome ?? .success {
        case .success: break
        case .userCancelled: text += " and cancel the payment sheet"
        case .pending: text += xcode ? " and leave the request waiting for approval" : " (simulatesAskToBuyInSandbox): it waits for approval"
        case .failed:
            if !xcode { return "turn off Allow Purchases & Renewals (\(SandboxHowTo.allowPurchasesPath)), " + text
                + " and let the purchase fail, then turn it back on" }
            text += " and let the purchase fail"
        case .interrupted: text += xcode ? " and let the purchase be interrupted" : " (Interrupt Purchases is on): the purchase is interrupted"
        }
        switch step.terminate {
        case .beforeDelivery: text += ", and force-quit the app before it delivers the purchase"
        case .beforeFinish: text += ", and force-quit the app after delivery, before it finishes the transaction"
        case nil: break
        }
        return text
    }

    func renewal(_ step: Step, wait: String, before: Int?) -> String {
        let count = step.count ?? 1
        let subscription = product(step.product)
        let limit = schedule.maximumRenewals.map { " of at most \($0)" } ?? ""
        guard let before else {
            return count == 1 ? "wait for the next renewal of \(subscription)" : "wait for \(count) renewals of \(subscription)"
        }
        if count == 1 { return "\(wait) for renewal \(before + 1)\(limit) of \(subscription)" }
        return "\(wait) for renewals \(before + 1)–\(before + count)\(limit) of \(subscription)"
    }

    /// What a person checks after the step: the access the app grants, a purchase or restore result, balances.
    func check(_ step: Step) -> String? {
        guard let expect = step.expect else { return nil }
        var parts: [String] = []
        if let access = expect.access { parts.append("access " + (access.isEmpty ? "none" : access.sorted().joined(separator: ", "))) }
        if let result = expect.result { parts.append("result \(result)") }
        for (name, amount) in (expect.balance ?? [:]).sorted(by: { $0.key < $1.key }) { parts.append("\(name) \(amount)") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    // MARK: Case setup

    static func clockSetup(_ schedule: RenewalSchedule, environment: EnvironmentKind) -> String {
        switch schedule.kind {
        case .sandbox(let rate):
            return "set the Sandbox account's subscription renewal rate to \(rate.rawValue) minutes a month (store.clock \(schedule))"
        case .xcode(let rate):
            return "set the StoreKit configuration's time rate to \(rate.name) (store.clock \(schedule))"
        case .real, .testFlight:
            return "use the clock \(schedule) (store.clock)"
        }
    }

    static func askToBuySetup(_ environment: EnvironmentKind) -> String {
        environment == .xcode ? "enable Ask to Buy in the StoreKit configuration (askToBuy)"
            : "use an account whose purchases need a parent's approval (Ask to Buy)"
    }
}
