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
        add("fresh-purchase", name, "Subscribe to \(label): access at once and after relaunch.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: granted.with {
                $0.result = "success"
                $0.subscriptionStatus = status(product, "subscribed")
                $0.notifications = ["SUBSCRIBED/INITIAL_BUY"]
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

    /// The introductory offer: the new account is eligible, the purchase uses it (`offerType` 1), after it the
    /// account is no longer eligible in the group.
    mutating func writeIntroductoryOfferCase(_ product: CatalogProduct) {
        let groupName = survey.group(of: product)?.expectationName
        func eligibility(_ eligible: Bool) -> [(String, Bool)] { groupName.map { [($0, eligible)] } ?? [] }
        add("offer", survey.slug(product) + "-introductory",
            "A new account is eligible for the introductory offer of \(survey.label(product)), uses it once, and is eligible no more.",
            steps: [
                step(.launch, expect: Expect(access: []).with { $0.eligibleForIntroOffer = eligibility(true) }),
                step(.purchase, product, [("offer", .string("introductory"))], expect: delivered(product).with {
                    $0.result = "success"
                    $0.notifications = ["SUBSCRIBED/INITIAL_BUY"]
                    $0.transaction = [("offerType", .int(1))]
                    $0.eligibleForIntroOffer = eligibility(false)
                }),
                step(.relaunch, expect: delivered(product)),
            ])
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
