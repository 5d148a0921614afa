import MatrixJSON
import MatrixModel
extension CaseWriter {
    /// The types whose first product catalog-wide cases use, in order of preference.
    static let showcaseTypes: [ProductType] = [.nonConsumable, .autoRenewable, .nonRenewable, .consumable]

    /// Cancel, Ask to Buy (approved, declined, approved while closed) and restore (after reinstall, on a
    /// second device, nothing to restore): once per catalog.
    mutating func writeCatalogCases() {
        if let product = first(Self.showcaseTypes) { writeStorefrontCase(product) }
        writeCancelCase()
        if let product = first(Self.showcaseTypes) { writePendingCases(product) }
        writeRestoreCases()
    }

    /// A purchase in another storefront: the app shows the price in that storefront's currency
    /// (`Product.displayPrice`) and the customer is charged what it shows (`price`, `currency`). A price written
    /// into the app shows wrong here.
    /// Apple: https://developer.apple.com/documentation/storekit/product/displayprice,
    /// https://developer.apple.com/documentation/appstoreserverapi/price
    mutating func writeStorefrontCase(_ product: CatalogProduct) {
        let storefront = survey.otherStorefront
        let charge = product.type == .autoRenewable ? survey.firstCharge(product) : product.priceMilliunits
        add("fresh-purchase", "\(survey.slug(product))-in-\(storefront.countryCode.lowercased())",
            "Buy \(survey.label(product)) in the \(storefront.countryCode) storefront: the app shows the price in \(storefront.currency) "
            + "and the customer is charged the price shown.",
            store: [("storefront", .string(storefront.countryCode))], steps: [
                step(.launch, expect: undelivered(product).with {
                    $0.displayPrice = [(product.productID, storefront.displayPrice(product.displayPrice))]
                }),
                step(.purchase, product, expect: delivered(product).with {
                    $0.result = "success"
                    $0.transaction = [("price", .int(Int(charge))), ("currency", .string(storefront.currency))]
                }),
                step(.relaunch, expect: delivered(product)),
            ])
    }

    /// The customer cancels the purchase sheet: access unchanged, nothing charged. When the catalog has a
    /// non-consumable and another product, the account owns the first and cancels the second.
    mutating func writeCancelCase() {
        let owned = first([.nonConsumable])
        let target = owned.flatMap { first(Self.showcaseTypes, excluding: $0) } ?? first(Self.showcaseTypes)
        guard let target else { return }
        let base = owned.flatMap { $0.productID == target.productID ? nil : [$0] } ?? []
        let alias = nextAlias("cancel", "purchase-sheet")
        let account = CaseDraft.AccountDraft(alias: alias, description: base.isEmpty ? "new account, no purchases" : "owns \(survey.label(base[0]))",
                                             owns: base.map(\.productID))
        add("cancel", "purchase-sheet", "The customer cancels the purchase sheet for \(survey.label(target)): access unchanged, nothing charged.",
            accounts: [account], steps: [
                step(.launch, expect: undelivered(target, base: base)),
                step(.purchase, target, [("outcome", .string("userCancelled"))], expect: undelivered(target, base: base).with {
                    $0.result = "userCancelled"
                    $0.notifications = []
                }),
                step(.relaunch, expect: undelivered(target, base: base)),
            ])
    }

    mutating func writePendingCases(_ product: CatalogProduct) {
        let askToBuy: [(String, JSONText)] = [("askToBuy", .bool(true))]
        let label = survey.label(product)
        add("pending", "ask-to-buy-approved",
            "Ask to Buy for \(label): pending is not an error and grants nothing; the approval arrives through Transaction.updates.",
            store: askToBuy, steps: [
                step(.launch, expect: undelivered(product)),
                step(.purchase, product, expect: undelivered(product).with {
                    $0.result = "pending"
                    $0.notifications = []
                }),
                step(.approveAskToBuy, product, expect: delivered(product).with {
                    $0.subscriptionStatus = status(product, "subscribed")
                    $0.notifications = [purchaseNotification(product)]
                }),
                step(.relaunch, expect: delivered(product)),
            ])
        add("pending", "ask-to-buy-declined", "Ask to Buy for \(label) declined: nothing granted, no transaction, no notification.",
            store: askToBuy, steps: [
                step(.launch, expect: undelivered(product)),
                step(.purchase, product, expect: undelivered(product).with { $0.result = "pending" }),
                step(.declineAskToBuy, product, expect: undelivered(product).with {
                    $0.entitlements = []
                    $0.notifications = []
                    $0.subscriptionStatus = status(product, "none")
                }),
                step(.relaunch, expect: undelivered(product).with { $0.entitlements = [] }),
            ])
        add("pending", "approved-while-closed",
            "The approval of \(label) is delivered at the next launch; the app must listen from launch, not from its store view.",
            store: askToBuy, steps: [
                step(.launch, expect: undelivered(product)),
                step(.purchase, product, expect: undelivered(product).with { $0.result = "pending" }),
                step(.quit),
                step(.approveAskToBuy, product),
                step(.launch, expect: delivered(product).with {
                    $0.entitlements = product.type == .consumable ? [] : [product.productID]
                }),
            ])
    }

    /// Restore after reinstall (an account that owns a product), on a second device (the first product of each
    /// kind that grants access), and with nothing to restore.
    mutating func writeRestoreCases() {
        if let owned = first([.nonConsumable, .autoRenewable, .nonRenewable]) {
            let alias = nextAlias("restore", "after-reinstall")
            add("restore", "after-reinstall",
                "Delete and reinstall the app: \(survey.label(owned)) is still there, and Restore Purchases confirms it.",
                accounts: [CaseDraft.AccountDraft(alias: alias, description: "owns \(survey.label(owned))", owns: [owned.productID])],
                steps: [
                    step(.launch, expect: delivered(owned)),
                    step(.reinstall, expect: delivered(owned)),
                    step(.restore, expect: delivered(owned).with {
                        $0.result = "restored"
                        $0.notifications = []
                    }),
                ])
        }
        let bought = [ProductType.nonConsumable, .autoRenewable, .nonRenewable].compactMap { first([$0]) }
        if !bought.isEmpty {
            var steps = [step(.launch, expect: Expect(access: []))]
            for (index, product) in bought.enumerated() {
                steps.append(step(.purchase, product, expect: Expect(access: access(Array(bought.prefix(index + 1))))))
            }
            steps += [
                step(.switchDevice, nil, [("device", .string("second"))]),
                step(.launch, expect: Expect(access: access(bought))),
                step(.restore, expect: Expect(access: access(bought), result: "restored")),
            ]
            add("restore", "second-device", "A second device signed in to the same account gets every purchase: "
                + bought.map { survey.label($0) }.joined(separator: ", ") + ".", steps: steps)
        }
        add("restore", "nothing-to-restore",
            "Restore on an account that never bought anything: nothing to restore, not an error, not a success.", steps: [
                step(.launch, expect: Expect(access: [])),
                step(.restore, expect: Expect(access: [], result: "nothingToRestore", notifications: [])),
            ])
    }
}
