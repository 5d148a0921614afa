import MatrixJSON
import MatrixModel
extension CaseWriter {
    /// For every subscription group: an upgrade and a downgrade between each pair of neighbouring levels (the
    /// first subscription of each level), and a crossgrade within every level that has two subscriptions; when
    /// that crossgrade takes effect at once and the level also has a subscription of another duration, a crossgrade
    /// to it too (it waits for the next renewal).
    /// Apple: https://developer.apple.com/app-store/subscriptions/#upgrading-downgrading-and-crossgrading
    mutating func writeGroupCases() {
        for group in survey.groups {
            let representatives = group.levels.compactMap(\.products.first)
            for (higher, lower) in zip(representatives, representatives.dropFirst()) {
                writeUpgradeCase(from: lower, to: higher)
                writeDowngradeCase(from: higher, to: lower)
            }
            for level in group.levels where level.products.count >= 2 {
                let first = level.products[0]
                writeCrossgradeCase(from: first, to: level.products[1])
                if level.products[1].recurringSubscriptionPeriod == first.recurringSubscriptionPeriod,
                   let other = level.products.first(where: { $0.recurringSubscriptionPeriod != first.recurringSubscriptionPeriod }) {
                    writeCrossgradeCase(from: first, to: other)
                }
            }
        }
    }

    /// An upgrade takes effect at once; the old transaction is `isUpgraded` and grants nothing more.
    mutating func writeUpgradeCase(from lower: CatalogProduct, to higher: CatalogProduct) {
        add("upgrade", "\(survey.slug(lower))-to-\(survey.slug(higher))",
            "An upgrade from \(survey.label(lower)) to \(survey.label(higher)) takes effect at once; the old transaction is marked isUpgraded and grants nothing more.",
            steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, lower, expect: delivered(lower)),
                step(.purchase, higher, expect: delivered(higher).with {
                    $0.result = "success"
                    $0.entitlements = [higher.productID]
                    $0.notifications = ["DID_CHANGE_RENEWAL_PREF/UPGRADE"]
                    $0.transaction = [("product", .string(lower.productID)), ("isUpgraded", .bool(true))]
                }),
                step(.disableAutoRenew, higher, expect: delivered(higher)),
                step(.advanceTime, higher, [("to", .string("expiration"))], expect: Expect(access: []).with {
                    $0.subscriptionStatus = status(higher, "expired")
                }),
                step(.relaunch, expect: Expect(access: [])),
            ])
    }

    /// A downgrade waits for the next renewal date; until then the higher level stays.
    mutating func writeDowngradeCase(from higher: CatalogProduct, to lower: CatalogProduct) {
        add("downgrade", "\(survey.slug(higher))-to-\(survey.slug(lower))",
            "A downgrade from \(survey.label(higher)) to \(survey.label(lower)) waits for the next renewal date; until then the higher level stays.",
            steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, higher, expect: delivered(higher)),
                step(.purchase, lower, expect: delivered(higher).with {
                    $0.result = "success"
                    $0.notifications = ["DID_CHANGE_RENEWAL_PREF/DOWNGRADE"]
                    $0.renewalInfo = [("autoRenewProductId", .string(lower.productID))]
                }),
                step(.renew, higher, expect: delivered(lower).with {
                    $0.notifications = ["DID_RENEW"]
                    $0.transaction = [("product", .string(lower.productID)), ("transactionReason", .string("RENEWAL"))]
                }),
                step(.relaunch, expect: delivered(lower)),
            ])
    }

    /// A crossgrade between two subscriptions of one level: at once when their periods match (the old
    /// transaction is `isUpgraded`), else at the next renewal date, as a downgrade.
    mutating func writeCrossgradeCase(from old: CatalogProduct, to new: CatalogProduct) {
        let immediate = old.recurringSubscriptionPeriod == new.recurringSubscriptionPeriod
        let change: [JSONText]
        if immediate {
            change = [
                step(.purchase, new, expect: delivered(new).with {
                    $0.result = "success"
                    $0.entitlements = [new.productID]
                    $0.notifications = ["DID_CHANGE_RENEWAL_PREF/UPGRADE"]
                    $0.transaction = [("product", .string(old.productID)), ("isUpgraded", .bool(true))]
                }),
                step(.relaunch, expect: delivered(new).with { $0.entitlements = [new.productID] }),
            ]
        } else {
            change = [
                step(.purchase, new, expect: delivered(old).with {
                    $0.result = "success"
                    $0.entitlements = [old.productID]
                    $0.notifications = ["DID_CHANGE_RENEWAL_PREF/DOWNGRADE"]
                    $0.renewalInfo = [("autoRenewProductId", .string(new.productID))]
                }),
                step(.renew, old, expect: delivered(new).with {
                    $0.entitlements = [new.productID]
                    $0.notifications = ["DID_RENEW"]
                    $0.transaction = [("product", .string(new.productID)), ("transactionReason", .string("RENEWAL"))]
                }),
                step(.relaunch, expect: delivered(new).with { $0.entitlements = [new.productID] }),
            ]
        }
        let when = immediate ? "at once (same period); the old transaction is marked isUpgraded" : "at the next renewal date (different period)"
        add("crossgrade", "\(survey.slug(old))-to-\(survey.slug(new))",
            "A crossgrade from \(survey.label(old)) to \(survey.label(new)) at the same level takes effect \(when).",
            steps: [
                step(.launch, expect: Expect(access: [])),
                step(.purchase, old, expect: delivered(old).with { $0.entitlements = [old.productID] }),
            ] + change)
    }
}
