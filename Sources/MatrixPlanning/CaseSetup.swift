import MatrixModel

/// The starting state of a case as a tester must establish it, in the environment's words: which account, a
/// cleared purchase history, what the account owns and how to get it, family membership, per-account settings,
/// a fresh install; what to undo afterwards; the aliases the case uses, whether it can share a test account,
/// and the app-wide settings it needs. Shared by `matrix plan` and the guided run.
package struct CaseSetup {
    /// Every alias the case uses, in first-use order (family organizers after their members).
    var accounts: [String] = []
    /// Why the case needs accounts of its own, when it cannot share its lane's account.
    var dedicated: String?
    /// The app-wide settings the case depends on.
    var appSettings = RunPlan.AppSettings()
    /// Lines for before the first step.
    package var setup: [String] = []
    /// Lines for after the last step.
    package var teardown: [String] = []
    /// The capabilities the case uses, for the plan's how-to section.
    var howTo: [SandboxHowTo] = []

    /// The setup of `matrixCase` on `schedule` (the case's clock) in `environment`.
    ///
    /// - Parameter performed: for each step, whether it will be performed (not skipped as an environment limit);
    ///   settings only skipped steps would need are left out.
    package init(matrix: Matrix, matrixCase: MatrixCase, environment: EnvironmentKind, schedule: RenewalSchedule, performed: [Bool]) {
        let describe = StepInstruction(matrix: matrix, matrixCase: matrixCase, environment: environment, schedule: schedule)
        let steps = matrixCase.steps.enumerated().filter { performed.indices.contains($0.offset) ? performed[$0.offset] : true }.map(\.element)
        let settings = matrix.storeSettings(for: matrixCase)
        let file = matrix.catalog.settings

        for alias in [matrixCase.account] + matrixCase.steps.compactMap(\.account) where !accounts.contains(alias) {
            accounts.append(alias)
        }
        let families = accounts.compactMap { member in matrix.account(member)?.familyOrganizer.map { (member: member, organizer: $0) } }
        for family in families where !accounts.contains(family.organizer) { accounts.append(family.organizer) }

        let owned = accounts.flatMap { alias in (matrix.account(alias)?.owns ?? []).map { (alias: alias, product: $0) } }
        let products = Set(owned.map(\.product) + steps.compactMap(\.product))
        let subscriptions = products.contains { matrix.catalog.product($0)?.type == .autoRenewable }
            || steps.contains { [.renew, .failRenewal, .recoverBilling, .disableAutoRenew, .enableAutoRenew, .expire].contains($0.action)
                || ($0.action == .advanceTime && $0.to != nil) }
        let purchases = steps.contains { $0.action == .purchase }
        let askToBuy = (settings.askToBuy ?? file.askToBuyEnabled ?? false) && purchases
        let interrupted = steps.filter { $0.action == .purchase && $0.outcome == .interrupted }.map { $0.account ?? matrixCase.account }
        // The storefront only when the matrix chose one: Xcode writes `_storefront` into every `.storekit` file.
        let storefront = settings.storefront

        // App-wide settings: the grace period of the first billing problem performed; a price increase.
        let configuredDays = settings.gracePeriodDays ?? ((file.billingGracePeriodEnabled ?? false) ? 16 : 0)
        if let failure = steps.first(where: { $0.action == .failRenewal }) {
            let grace = failure.gracePeriod ?? (configuredDays > 0)
            appSettings.gracePeriodDays = grace ? (configuredDays > 0 ? configuredDays : 16) : 0
        }
        if environment != .xcode, let increase = steps.first(where: { $0.action == .requestPriceIncrease }) {
            appSettings.priceIncrease = increase.product ?? describe.subscriptionOfAccount
        }

        switch environment {
        case .sandbox:
            sandbox(matrix: matrix, matrixCase: matrixCase, steps: steps, families: families, schedule: schedule,
                    subscriptions: subscriptions, storefront: storefront, interrupted: interrupted)
        case .testflight:
            testFlight(families: families, storefront: storefront)
        default:
            setup.append("StoreKit Testing in Xcode: delete every transaction first (Transaction Manager, or SKTestSession.clearTransactions())")
        }
        if askToBuy {
            if environment == .xcode {
                setup.append(StepInstruction.askToBuySetup(environment))
            } else {
                setup.append("Ask to Buy: the build must pass Product.PurchaseOption.simulatesAskToBuyInSandbox(true) to purchase(options:) "
                    + "so the purchase waits for approval; a request cannot be answered here, so approve and decline steps are skipped")
                use(.askToBuy)
            }
        }
        if let days = appSettings.gracePeriodDays {
            setup.append("check that the app's billing grace period is " + (days > 0 ? "\(days) days" : "off")
                + (environment == .xcode ? " in the StoreKit configuration" : " in App Store Connect (set for the whole group)"))
            if environment != .xcode { use(.gracePeriod) }
        }
        if let product = appSettings.priceIncrease {
            setup.append("check that \(describe.product(product)) has its original price in App Store Connect (this case runs alone)")
            teardown.append("set the price of \(describe.product(product)) back in App Store Connect")
            use(.priceIncrease)
        }
        for item in owned {
            setup.append("\(item.alias) must own \(describe.product(item.product)): buy it first with \(item.alias) in the app "
                + "and let the app finish the purchase")
        }
        switch environment {
        case .sandbox: setup.append("delete the app and install the build again, so that the case starts without app data")
        case .testflight: setup.append("delete the app and install it again from TestFlight, so that the case starts without app data")
        default: setup.append("delete the app from the device or simulator, so that the case starts without app data")
        }
        for step in steps where [.refund, .declineRefund, .revokeFamilySharing, .requestPriceIncrease].contains(step.action)
            || (step.action == .purchase && step.outcome == .failed) {
            switch step.action {
            case .refund: use(.refund)
            case .declineRefund: use(.declineRefund)
            case .revokeFamilySharing: use(.familySharing)
            case .purchase: use(.billingIssue)
            default: break
            }
        }
        if environment != .xcode, steps.contains(where: { $0.action == .revokeFamilySharing }) {
            for family in families { teardown.append("add \(family.member) back to \(family.organizer)'s Sandbox Test Family") }
        }
    }

    private mutating func use(_ howTo: SandboxHowTo) {
        if !self.howTo.contains(howTo) { self.howTo.append(howTo) }
    }

    private mutating func sandbox(matrix: Matrix, matrixCase: MatrixCase, steps: [Step], families: [(member: String, organizer: String)],
                                  schedule: RenewalSchedule, subscriptions: Bool, storefront: String?, interrupted: [String]) {
        let names = accounts.joined(separator: ", ")
        setup.append(accounts.count == 1
            ? "Sandbox account \(names): sign in on the device (Settings > Developer > Sandbox Apple Account)"
            : "Sandbox accounts \(names): a device each, or sign in to one device in turn (Settings > Developer > Sandbox Apple Account)")
        let groups = introductoryOfferGroups(matrix: matrix, steps: steps)
        if !families.isEmpty {
            dedicated = "a Sandbox Test Family (" + names + ")"
        } else if !groups.isEmpty {
            dedicated = "a Sandbox Apple Account that has never subscribed in " + groups.joined(separator: " or ")
                + ", for its introductory offer — clearing purchase history resets the account's In-App Purchase and subscription "
                + "history, but Apple does not say it restores introductory offer eligibility"
        } else if accounts.count > 1 {
            dedicated = "several accounts (\(names))"
        }
        if let dedicated { setup.append("needs accounts of its own, shared with no other case: \(dedicated)") }
        setup.append("clear the purchase history first: matrix sandbox clear \(accounts.joined(separator: " "))")
        use(.clearPurchaseHistory)
        if let storefront {
            setup.append("App Store country or region of \(names): \(storefront) (edit the Sandbox account in App Store Connect, then sign in again)")
            use(.storefront)
        }
        for family in families {
            setup.append("\(family.member) must be a member of \(family.organizer)'s Sandbox Test Family in App Store Connect")
            use(.familySharing)
        }
        if subscriptions, case .sandbox(let rate) = schedule.kind {
            let short = rate.rawValue == 60 ? "1h" : "\(rate.rawValue)m"
            for alias in accounts { setup.append("renewal rate: matrix sandbox set \(alias) --renewal-rate \(short)") }
            use(.renewalRate)
        }
        for alias in accounts where interrupted.contains(alias) {
            setup.append("interrupted purchases: matrix sandbox set \(alias) --interrupt-purchases on")
            teardown.append("matrix sandbox set \(alias) --interrupt-purchases off")
            use(.interruptedPurchase)
        }
        if steps.contains(where: { $0.action == .failRenewal }) {
            teardown.append("turn Allow Purchases & Renewals back on (\(SandboxHowTo.allowPurchasesPath))")
            use(.billingIssue)
        }
    }

    private mutating func testFlight(families: [(member: String, organizer: String)], storefront: String?) {
        let names = accounts.joined(separator: ", ")
        setup.append((accounts.count == 1 ? "Apple Account \(names)" : "Apple Accounts \(names)")
            + ": the tester's own, signed in to the App Store; TestFlight uses Sandbox with it")
        let reason = "an Apple Account that has not bought this app's products in TestFlight — a TestFlight purchase history "
            + "cannot be cleared (Clear Purchase History resets Sandbox Apple Accounts only)"
        dedicated = reason
        setup.append("needs accounts of its own, shared with no other case: \(reason)")
        use(.testFlightAccounts)
        if let storefront { setup.append("App Store country or region of \(names): \(storefront)") }
        for family in families {
            setup.append("\(family.member) must be in \(family.organizer)'s family (Family Sharing)")
        }
    }

    /// The subscription groups (by name) in which the case needs an account still eligible for an introductory offer:
    /// it expects a purchase to get one (`offerType` 1, or the offer's price where it differs from the regular one:
    /// the offer applies by itself to an eligible account), or expects eligibility.
    private func introductoryOfferGroups(matrix: Matrix, steps: [Step]) -> [String] {
        var groups: [String] = []
        func add(_ name: String) { if !groups.contains(name) { groups.append(name) } }
        for step in steps {
            guard step.action == .purchase, let expected = step.expect?.transaction,
                  let product = (expected.product ?? step.product).flatMap(matrix.catalog.product), let id = product.subscriptionGroupID else {
                continue
            }
            if expected.offerType == 1 || Self.isIntroductoryPrice(expected.price, of: product) {
                add(matrix.catalog.group(id)?.name ?? id)
            }
        }
        for step in steps {
            for (group, eligible) in (step.expect?.eligibleForIntroOffer ?? [:]).sorted(by: { $0.key < $1.key }) where eligible {
                add(matrix.catalog.group(group)?.name ?? group)
            }
        }
        return groups
    }

    /// Whether `price` (milliunits) is what `product`'s introductory offer charges (0 for a free trial) and not
    /// its regular price: only an account eligible for the offer pays it.
    static func isIntroductoryPrice(_ price: Int64?, of product: CatalogProduct) -> Bool {
        guard let price, let offer = product.introductoryOffer else { return false }
        let offered = offer.paymentMode == .freeTrial ? 0 : offer.displayPrice.map(CatalogProduct.milliunits) ?? 0
        return price == offered && price != product.priceMilliunits
    }
}
