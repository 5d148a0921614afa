import MatrixJSON
import MatrixModel
extension CaseWriter {
    /// Every case an auto-renewable subscription needs: fresh purchase, renewals (also while the app is
    /// closed), cancellation, grace period, billing retry recovered and giving up, refund, Family Sharing when
    /// shareable, and its introductory offer when the catalog defines one.
    mutating func writeSubscriptionCases(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let label = survey.label(product)
        let granted = delivered(product)
        let storefront = survey.storefront
        let charged: [(String, JSONText)] = [("price", .int(Int(survey.firstCharge(product)))), ("currency", .string(storefront.currency))]
        add("fresh-purchase", name, "Subscribe to \(label): the price StoreKit shows is the one charged (the introductory offer's, "
            + "when there is one, applies by itself), access at once and after relaunch.", steps: [
            step(.launch, expect: Expect(access: []).with {
                $0.displayPrice = [(product.productID, storefront.displayPrice(product.displayPrice))]
                $0.introductoryOffer = [(product.productID, survey.introductoryOfferMode(product))]
            }),
            step(.purchase, product, expect: granted.with {
                $0.result = "success"
                $0.subscriptionStatus = status(product, "subscribed")
                $0.notifications = ["SUBSCRIBED/INITIAL_BUY"]
                $0.transaction = charged
            }),
            step(.relaunch, expect: granted),
        ])
        add("renewal", name, "Two renewals of \(label) keep access; so does a relaunch.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: granted.with { $0.result = "success" }),
            step(.renew, product, expect: granted.with {
                $0.renewals = 1
                $0.notifications = ["DID_RENEW"]
            }),
            step(.renew, product, expect: granted.with {
                $0.renewals = 2
                $0.notifications = ["DID_RENEW"]
                $0.subscriptionStatus = status(product, "subscribed")
            }),
            step(.relaunch, expect: granted),
        ])
        add("renewal", name + "-while-closed", "Renewals of \(label) made while the app was closed are there at the next launch.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: granted),
            step(.quit),
            step(.renew, product, [("count", .int(3))], expect: Expect(renewals: 3)),
            step(.launch, expect: granted.with {
                $0.renewals = 3
                $0.transaction = [("product", .string(product.productID)), ("transactionReason", .string("RENEWAL"))]
            }),
        ])
        add("cancellation", name, "Auto-renew of \(label) off: access until the expiration date, none after.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: granted),
            step(.disableAutoRenew, product, expect: granted.with {
                $0.notifications = ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"]
                $0.renewalInfo = [("autoRenewStatus", .int(0))]
            }),
            step(.advanceTime, product, [("to", .string("expiration"))], expect: Expect(access: [], notifications: ["EXPIRED/VOLUNTARY"]).with {
                $0.subscriptionStatus = status(product, "expired")
                $0.renewalInfo = [("expirationIntent", .int(1))]
            }),
            step(.relaunch, expect: Expect(access: [])),
        ])
        writeBillingCases(product)
        add("refund", name, "A refunded subscription to \(label) is revoked at once, not at the end of the period.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: granted),
            step(.observe, expect: granted.with { $0.subscriptionStatus = status(product, "subscribed") }),
            step(.refund, product, expect: Expect(access: [], notifications: ["REFUND"]).with {
                $0.subscriptionStatus = status(product, "revoked")
            }),
            step(.relaunch, expect: Expect(access: [])),
        ])
        if product.introductoryOffer != nil { writeIntroductoryOfferCase(product) }
        // A price increase needs a price to raise.
        if survey.group(of: product)?.group.productIDs.first == product.productID, product.priceMilliunits > 0 {
            writePriceIncreaseCases(product)
        }
        if product.familyShareable { writeFamilySubscriptionCase(product) }
    }

    /// A billing failure with a 16-day grace period; billing retry without one, recovered and giving up.
    mutating func writeBillingCases(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let label = survey.label(product)
        let granted = delivered(product)
        add("grace-period", name,
            "A billing failure of \(label) with a 16-day grace period (6 days for weekly subscriptions): access until it ends, none in billing retry, back on recovery.",
            store: [("gracePeriodDays", .int(16))], steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: granted),
                step(.failRenewal, product, expect: granted),
                step(.advanceTime, product, [("to", .string("expiration"))], expect: granted.with {
                    $0.subscriptionStatus = status(product, "inGracePeriod")
                    $0.notifications = ["DID_FAIL_TO_RENEW/GRACE_PERIOD"]
                }),
                step(.advanceTime, product, [("to", .string("gracePeriodEnd"))], expect: Expect(access: [], notifications: ["GRACE_PERIOD_EXPIRED"]).with {
                    $0.subscriptionStatus = status(product, "inBillingRetryPeriod")
                }),
                step(.recoverBilling, product, expect: granted.with {
                    $0.subscriptionStatus = status(product, "subscribed")
                    $0.notifications = ["DID_RENEW/BILLING_RECOVERY"]
                }),
                step(.relaunch, expect: granted),
            ])
        let noGrace: [(String, JSONText)] = [("gracePeriodDays", .int(0))]
        add("billing-retry", name + "-recovered",
            "Without a grace period a billing failure of \(label) locks at once; recovery within billing retry restores access.",
            store: noGrace, steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: granted),
                step(.failRenewal, product, [("gracePeriod", .bool(false))], expect: granted),
                step(.advanceTime, product, [("to", .string("expiration"))], expect: Expect(access: [], notifications: ["DID_FAIL_TO_RENEW"]).with {
                    $0.subscriptionStatus = status(product, "inBillingRetryPeriod")
                    $0.renewalInfo = [("isInBillingRetryPeriod", .bool(true))]
                }),
                step(.relaunch, expect: Expect(access: [])),
                step(.recoverBilling, product, expect: granted.with {
                    $0.subscriptionStatus = status(product, "subscribed")
                    $0.notifications = ["DID_RENEW/BILLING_RECOVERY"]
                }),
            ])
        add("billing-retry", name + "-gives-up",
            "Billing retry of \(label) ends after its period: expired with expirationIntent 2, a billing error, not a voluntary expiry.",
            store: noGrace, steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: granted),
                step(.failRenewal, product, [("gracePeriod", .bool(false))]),
                step(.advanceTime, product, [("to", .string("expiration"))], expect: Expect(access: []).with {
                    $0.subscriptionStatus = status(product, "inBillingRetryPeriod")
                }),
                step(.advanceTime, product, [("to", .string("billingRetryEnd"))], expect: Expect(access: [], notifications: ["EXPIRED/BILLING_RETRY"]).with {
                    $0.subscriptionStatus = status(product, "expired")
                    $0.renewalInfo = [("expirationIntent", .int(2))]
                }),
            ])
    }

    /// The introductory offer applies by itself: the new account is eligible, a plain purchase gets the offer
    /// (`offerType` 1, the offer's price, the offer's period), the account is eligible no more, and once the
    /// offer's transactions are over the subscription renews at the regular price.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer,
    /// https://developer.apple.com/documentation/storekit/implementing-introductory-offers-in-your-app
    mutating func writeIntroductoryOfferCase(_ product: CatalogProduct) {
        guard let intro = product.introductoryOffer else { return }
        let groupName = survey.group(of: product)?.expectationName
        func eligibility(_ eligible: Bool) -> [(String, Bool)] { groupName.map { [($0, eligible)] } ?? [] }
        let offerTransactions = survey.introductoryTransactions(product)
        let firstPeriod = intro.paymentMode == .payAsYouGo ? intro.subscriptionPeriod : intro.totalDuration
        add("offer", survey.slug(product) + "-introductory",
            "A new account is eligible for the introductory offer of \(survey.label(product)), gets it without asking, is eligible no more, "
            + "and renews at the regular price once the offer is over.",
            steps: [
                step(.launch, expect: Expect(access: []).with {
                    $0.eligibleForIntroOffer = eligibility(true)
                    $0.introductoryOffer = [(product.productID, survey.introductoryOfferMode(product))]
                }),
                step(.purchase, product, expect: delivered(product).with {
                    $0.result = "success"
                    $0.notifications = ["SUBSCRIBED/INITIAL_BUY"]
                    $0.transaction = [("offerType", .int(1)), ("price", .int(Int(survey.firstCharge(product)))),
                                      ("expiresAfter", .string(firstPeriod.description))]
                    $0.eligibleForIntroOffer = eligibility(false)
                }),
                step(.renew, product, offerTransactions > 1 ? [("count", .int(offerTransactions))] : [], expect: delivered(product).with {
                    $0.renewals = offerTransactions
                    $0.transaction = [("transactionReason", .string("RENEWAL")), ("price", .int(Int(product.priceMilliunits)))]
                }),
                step(.relaunch, expect: delivered(product)),
            ])
    }

    /// A price increase that needs consent: consented, the product shows the new price and the next regular
    /// renewal charges it; unanswered, the subscription expires at the end of the period with `expirationIntent` 3.
    /// Apple: https://developer.apple.com/documentation/appstoreservernotifications/notificationtype (PRICE_INCREASE),
    /// https://developer.apple.com/documentation/appstoreserverapi/expirationintent
    mutating func writePriceIncreaseCases(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let label = survey.label(product)
        let granted = delivered(product)
        let raised = Self.increased(product.displayPrice)
        let toRegular = max(1, survey.introductoryTransactions(product))
        let request = step(.requestPriceIncrease, product, [("price", .string(raised))], expect: granted.with {
            $0.notifications = ["PRICE_INCREASE/PENDING"]
            $0.displayPrice = [(product.productID, survey.storefront.displayPrice(raised))]
        })
        add("price-increase", name + "-consented",
            "The price of \(label) rises to \(raised) with consent: StoreKit shows the new price, and once the customer consents the next "
            + "regular renewal charges it.", steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: granted),
                request,
                step(.consentToPriceIncrease, product, expect: granted.with { $0.notifications = ["PRICE_INCREASE/ACCEPTED"] }),
                step(.renew, product, toRegular > 1 ? [("count", .int(toRegular))] : [], expect: granted.with {
                    $0.transaction = [("transactionReason", .string("RENEWAL")), ("price", .int(Int(CatalogProduct.milliunits(raised))))]
                }),
                step(.relaunch, expect: granted),
            ])
        add("price-increase", name + "-unanswered",
            "The price of \(label) rises with consent and the customer never answers: the subscription expires at the end of the period "
            + "(EXPIRED/PRICE_INCREASE, expirationIntent 3).", steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: granted),
                request,
                step(.advanceTime, product, [("to", .string("expiration"))], expect: Expect(access: [], notifications: ["EXPIRED/PRICE_INCREASE"]).with {
                    $0.subscriptionStatus = status(product, "expired")
                    $0.renewalInfo = [("expirationIntent", .int(3))]
                }),
                step(.relaunch, expect: Expect(access: [])),
            ])
    }

    /// A price 20 % higher, rounded up to the cent, as the catalog writes prices: `"4.99"` → `"5.99"`.
    static func increased(_ price: String) -> String {
        let cents = (CatalogProduct.milliunits(price) * 6 / 5 + 9) / 10
        let fraction = String(cents % 100)
        return "\(cents / 100)." + (fraction.count == 1 ? "0" + fraction : fraction)
    }

    /// A member gets the organizer's family-shareable subscription and loses it on leaving the family; the
    /// organizer keeps it.
    mutating func writeFamilySubscriptionCase(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let base = nextAlias("family-sharing", name)
        let organizer = base + "-organizer"
        let member = base + "-member"
        let accounts = [
            CaseDraft.AccountDraft(alias: organizer, description: "family organizer, subscribed to \(survey.label(product)) (family-shareable)",
                                   owns: [product.productID]),
            CaseDraft.AccountDraft(alias: member, description: "family member of \(organizer)", familyOrganizer: organizer),
        ]
        let granted = delivered(product)
        add("family-sharing", name,
            "A member gets the organizer's family-shareable \(survey.label(product)) and loses it on leaving the family; the organizer keeps it.",
            accounts: accounts, acting: member, steps: [
                step(.launch, expect: granted.with {
                    $0.transaction = [("product", .string(product.productID)), ("inAppOwnershipType", .string("FAMILY_SHARED"))]
                }),
                step(.launch, account: organizer, expect: granted),
                step(.revokeFamilySharing, expect: Expect(access: [], notifications: ["REVOKE"])),
                step(.observe, account: organizer, expect: granted),
                step(.relaunch, expect: Expect(access: [])),
            ])
        writeOwnBesideSharedCase(product)
    }

    /// A member who has the organizer's subscription through the family buys it too: two statuses in the group
    /// (their own first). When their own ends, the shared one still serves them.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptioninfo/status-swift.property
    mutating func writeOwnBesideSharedCase(_ product: CatalogProduct) {
        let name = survey.slug(product) + "-own-beside-shared"
        let base = nextAlias("family-sharing", name)
        let organizer = base + "-organizer"
        let member = base + "-member"
        let accounts = [
            CaseDraft.AccountDraft(alias: organizer, description: "family organizer, subscribed to \(survey.label(product)) (family-shareable)",
                                   owns: [product.productID]),
            CaseDraft.AccountDraft(alias: member, description: "family member of \(organizer)", familyOrganizer: organizer),
        ]
        let granted = delivered(product)
        add("family-sharing", name,
            "A member with the family's \(survey.label(product)) subscribes on their own too; when their own ends, the shared one "
            + "still serves them (StoreKit reports both statuses).",
            accounts: accounts, acting: member, steps: [
                step(.launch, expect: granted.with {
                    $0.transaction = [("product", .string(product.productID)), ("inAppOwnershipType", .string("FAMILY_SHARED"))]
                }),
                step(.purchase, product, expect: granted.with {
                    $0.result = "success"
                    $0.notifications = ["SUBSCRIBED/INITIAL_BUY"]
                    $0.transaction = [("inAppOwnershipType", .string("PURCHASED"))]
                }),
                step(.expire, product, expect: granted.with { $0.subscriptionStatus = status(product, "subscribed") }),
                step(.relaunch, expect: granted),
            ])
    }

    // MARK: Environment limits

    /// Sandbox renews at most 12 times, TestFlight 6 times a day apart: on each clock, the subscription with the
    /// shortest period (the first of those), so that the Sandbox case waits as little as it can (12 monthly
    /// renewals at 5 minutes a month take an hour; 12 yearly ones 12 hours).
    mutating func writeEnvironmentLimitCases() {
        let subscriptions = survey.products(of: .autoRenewable)
        guard let product = subscriptions.enumerated().min(by: { a, b in
            let (x, y) = (a.element.recurringSubscriptionPeriod?.approximateDays ?? .infinity,
                          b.element.recurringSubscriptionPeriod?.approximateDays ?? .infinity)
            return x != y ? x < y : a.offset < b.offset
        })?.element else { return }
        let granted = delivered(product)
        for (name, clock, limit, description) in [
            ("sandbox-12-renewals", "sandbox:5", 12, "Sandbox renews a subscription at most 12 times, then auto-renew stops: an environment limit, not a bug."),
            ("testflight-daily-renewals", "testflight", 6, "TestFlight renews once a day whatever the period, at most 6 times."),
        ] {
            add("environment-limit", name, description, store: [("clock", .string(clock))], steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: granted),
                step(.renew, product, [("count", .int(limit))], expect: granted.with { $0.renewals = limit }),
                step(.advanceTime, product, [("to", .string("expiration"))], expect: Expect(access: [], renewals: limit).with {
                    $0.subscriptionStatus = status(product, "expired")
                }),
            ])
        }
    }
}
