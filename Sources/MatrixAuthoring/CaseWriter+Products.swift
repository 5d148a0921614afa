import MatrixModel
extension CaseWriter {
    // MARK: Non-consumables

    /// Fresh purchase then relaunch; refund while running then relaunch; Family Sharing when shareable.
    mutating func writeNonConsumableCases(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let label = survey.label(product)
        add("fresh-purchase", name, "Buy \(label): access at once from the purchase() result, and after relaunch.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: delivered(product).with {
                $0.result = "success"
                $0.entitlements = [product.productID]
                $0.notifications = ["ONE_TIME_CHARGE"]
            }),
            step(.relaunch, expect: delivered(product)),
        ])
        add("refund", name, "A refund of \(label) locks it at once while the app runs, not only after relaunch.", steps: [
            step(.launch, expect: Expect(access: [])),
            step(.purchase, product, expect: delivered(product)),
            step(.refund, product, expect: Expect(access: [], entitlements: [], notifications: ["REFUND"]).with {
                $0.transaction = [("revoked", .bool(true))]
            }),
            step(.relaunch, expect: Expect(access: [])),
        ])
        if product.familyShareable { writeFamilyPurchaseCase(product) }
    }

    /// The organizer buys a family-shareable non-consumable; the member gets it as `FAMILY_SHARED` and loses it
    /// on leaving the family; the organizer keeps it.
    mutating func writeFamilyPurchaseCase(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let base = nextAlias("family-sharing", name)
        let organizer = base + "-organizer"
        let member = base + "-member"
        let accounts = [
            CaseDraft.AccountDraft(alias: organizer, description: "family organizer, no purchases"),
            CaseDraft.AccountDraft(alias: member, description: "family member of \(organizer)", familyOrganizer: organizer),
        ]
        add("family-sharing", name,
            "The organizer buys family-shareable \(survey.label(product)); the member gets it as FAMILY_SHARED and loses it on leaving the family.",
            accounts: accounts, acting: member, steps: [
                step(.launch, account: organizer, expect: Expect(access: [])),
                step(.purchase, product, account: organizer, expect: delivered(product)),
                step(.launch, expect: delivered(product).with {
                    $0.transaction = [("product", .string(product.productID)), ("inAppOwnershipType", .string("FAMILY_SHARED"))]
                }),
                step(.revokeFamilySharing, expect: Expect(access: [], notifications: ["REVOKE"])),
                step(.observe, account: organizer, expect: delivered(product)),
            ])
    }

    // MARK: Consumables

    /// Credited once per purchase and kept over relaunch; an unfinished transaction replayed at launch is not
    /// credited again; a purchase whose delivery a crash interrupted is delivered at the next launch, once.
    mutating func writeConsumableCases(_ product: CatalogProduct) {
        let name = survey.slug(product)
        let label = survey.label(product)
        add("consumable", name, "Each purchase of \(label) is credited exactly once and finished, never in current entitlements; the balance survives relaunch.", steps: [
            step(.launch, expect: undelivered(product)),
            step(.purchase, product, expect: delivered(product).with {
                $0.result = "success"
                $0.entitlements = []
                $0.notifications = ["ONE_TIME_CHARGE"]
            }),
            step(.purchase, product, expect: delivered(product, times: 2).with { $0.entitlements = [] }),
            step(.relaunch, expect: delivered(product, times: 2).with { $0.entitlements = [] }),
        ])
        add("consumable", name + "-unfinished-replayed",
            "\(label) delivered but not finished before the app died: the replay at launch must not credit it again.", steps: [
                step(.launch, expect: undelivered(product)),
                step(.purchase, product, [("terminate", .string("beforeFinish"))], expect: delivered(product)),
                step(.launch, expect: delivered(product)),
                step(.relaunch, expect: delivered(product)),
            ])
        add("consumable", name + "-killed-before-delivery",
            "The app died before delivering \(label): the unfinished transaction is delivered at the next launch, once.", steps: [
                step(.launch, expect: undelivered(product)),
                step(.purchase, product, [("terminate", .string("beforeDelivery"))], expect: undelivered(product)),
                step(.launch, expect: delivered(product)),
                step(.relaunch, expect: delivered(product)),
            ])
    }

    // MARK: Non-renewing subscriptions

    /// Access for the duration the app grants, none after it, though StoreKit keeps listing the transaction.
    mutating func writeNonRenewingCases(_ product: CatalogProduct) {
        guard let duration = survey.durations[product.productID] else { return }
        let (before, after) = duration.checkpoints
        let source = duration.source == nil
            ? "\(duration.duration) is assumed, as the name names no period; set nonRenewing to what the app grants"
            : "\(duration.duration) is read from the name \"\(duration.source ?? "")\""
        add("non-renewing", survey.slug(product),
            "The app grants \(survey.label(product)) for \(duration.duration) from the purchase date (\(source)); StoreKit keeps listing the transaction.",
            steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, product, expect: delivered(product).with {
                    $0.result = "success"
                    $0.notifications = ["ONE_TIME_CHARGE"]
                }),
                step(.advanceTime, nil, [("by", .string(before.description))], expect: delivered(product)),
                step(.advanceTime, nil, [("by", .string(after.description))], expect: Expect(access: [], entitlements: [product.productID])),
                step(.relaunch, expect: Expect(access: [])),
            ])
    }
}
