import MatrixModel

/// What to tell a tester for each step of a guided run, in the words of ``SandboxHowTo``.
enum Instructions {
    static func text(for step: Step, index: Int, case matrixCase: MatrixCase, matrix: Matrix, adapter: GuidedAdapter,
                     account alias: String, appleAccount: String?) -> String {
        // A bundle id `matrix init` guessed names no real app: the tester is not told to open it.
        let app = matrix.name.isEmpty || matrix.app.bundleIdGuessed ? "the app under test" : "the app (\(matrix.app.bundleId))"
        let who = appleAccount.map { "Sandbox account \(alias) <\($0)>" } ?? "the Sandbox account for \(alias)"
        let sheet = adapter.environment == .testflight ? "[Environment: Sandbox] (TestFlight uses Sandbox)" : "[Environment: Sandbox]"
        func name(_ productID: String?) -> String {
            guard let productID else { return "the subscription" }
            let display = matrix.catalog.product(productID)?.displayName
            return display.map { "\($0) (\(productID))" } ?? productID
        }
        let header = "[\(matrixCase.id) #\(index)] \(step.action.rawValue) (step \(index + 1) of \(matrixCase.steps.count))"
        var body: String
        switch step.action {
        case .launch:
            body = "Open \(app) on \(adapter.device), signed in with \(who)."
        case .relaunch:
            body = "Quit \(app) from the app switcher, then open it again."
        case .quit:
            body = "Quit \(app) from the app switcher."
        case .reinstall:
            body = "Delete \(app), install build \(adapter.build) again, and open it."
        case .switchDevice:
            body = "Take another device (\(step.device ?? "a second device")) signed in with \(who); install build \(adapter.build); do not open it yet."
        case .purchase:
            body = "In \(app), buy \(name(step.product))"
            if let quantity = step.quantity, quantity > 1 { body += ", quantity \(quantity)" }
            if let offer = step.offer { body += ", with the \"\(offer)\" offer" }
            body += ". Check that the purchase sheet shows \(sheet). "
            switch step.outcome ?? .success {
            case .success: body += "Confirm the purchase."
            case .userCancelled: body += "Then cancel the sheet."
            case .pending:
                body += "The build must pass Product.PurchaseOption.simulatesAskToBuyInSandbox(true), Sandbox's simulated Ask to Buy: "
                    + "the purchase waits for approval."
            case .interrupted: body += "The tester account must have Interrupt Purchases on (`matrix sandbox set \(alias) --interrupt-purchases on`)."
            case .failed:
                body += "Before confirming, turn off Allow Purchases & Renewals (\(SandboxHowTo.allowPurchasesPath)): the purchase must "
                    + "fail. Turn the setting back on afterwards."
            }
        case .approveAskToBuy:
            body = "Approve the Ask to Buy request for \(name(step.product))."
        case .declineAskToBuy:
            body = "Decline the Ask to Buy request for \(name(step.product))."
        case .resolveIssue:
            body = "Resolve the interrupted purchase: accept the prompt, and turn Interrupt Purchases off for \(alias)."
        case .restore:
            body = "In \(app), tap Restore Purchases."
        case .purchaseOutsideApp:
            body = "Outside the app (another device with the same account, or an offer code), buy \(name(step.product))."
        case .renew:
            let count = step.count ?? 1
            body = "Leave the subscription running: the runner waits for \(count) renewal\(count == 1 ? "" : "s") at the \(adapter.schedule) rate."
        case .advanceTime:
            if let by = step.by {
                body = "Wait \(by) of real time (the runner counts down)."
            } else {
                body = "Wait until the subscription's \(step.to?.rawValue ?? "expiration") (the runner counts down)."
            }
        case .disableAutoRenew:
            body = "Cancel \(name(step.product)) (turn auto-renew off) on the device's subscription management page or the app's Manage Subscriptions."
        case .enableAutoRenew:
            body = "Resubscribe to \(name(step.product)) in the subscription management page."
        case .expire:
            body = "End \(name(step.product)) now."
        case .failRenewal:
            body = "Turn off Allow Purchases & Renewals for \(alias) (\(SandboxHowTo.allowPurchasesPath)) so that the next renewal of "
                + "\(name(step.product)) fails with a billing problem."
        case .recoverBilling:
            body = "Turn Allow Purchases & Renewals back on for \(alias) (\(SandboxHowTo.allowPurchasesPath)) so that \(name(step.product)) renews."
        case .requestRefund:
            body = "In the app's refund request sheet for \(name(step.product)), choose any reason and submit; leave the request "
                + "unanswered for now (the App Store asks the developer's server for consumption data)."
        case .refund:
            body = "In the app's refund request sheet for \(name(step.product)), choose any reason and submit: the App Store approves "
                + "it automatically in Sandbox."
        case .declineRefund:
            body = "In the app's refund request sheet for \(name(step.product)), choose Issue > Other, type DECLINE and tap Request "
                + "Refund: the App Store declines it automatically in Sandbox."
        case .reverseRefund:
            body = "Reverse the refund of \(name(step.product))."
        case .revokeFamilySharing:
            let family = matrix.account(alias)?.familyOrganizer.map { "\($0)'s Sandbox Test Family" } ?? "the Sandbox Test Family"
            body = "Remove \(alias) from \(family) in App Store Connect."
        case .requestPriceIncrease:
            body = "Raise the price of \(name(step.product))\(step.price.map { " to \($0)" } ?? "") in App Store Connect by enough that "
                + "subscribers must consent; the change can take up to 1 hour to reach Sandbox."
        case .consentToPriceIncrease:
            body = "In the price increase sheet, agree to the new price."
        case .declinePriceIncrease:
            body = "In the price increase sheet, decline the new price."
        case .removeFromSale:
            body = "In App Store Connect, remove \(name(step.product)) from sale (its Availability: no countries or regions). "
                + "This applies to every customer, not only Sandbox."
        case .extendRenewalDate:
            body = "Call the App Store Server API's Extend a Subscription Renewal Date for \(alias)'s \(name(step.product)), "
                + "extendByDays \(step.extendByDays ?? 0)."
        case .extendRenewalDatesForAllSubscribers:
            body = "Call the App Store Server API's Extend Subscription Renewal Dates for All Active Subscribers for \(name(step.product)), "
                + "extendByDays \(step.extendByDays ?? 0)."
        case .requestTestNotification:
            body = "Call the App Store Server API's Request a Test Notification."
        case .observe:
            body = "Look at \(app)."
        }
        if let note = step.note { body += "\nNote: \(note)" }
        return header + "\n  " + body
    }
}
