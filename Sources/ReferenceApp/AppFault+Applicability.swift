import MatrixModel

/// What a catalog must offer for an app fault to be observable at all.
///
/// An app with a fault behaves differently from the reference app only where the catalog lets it: a Family
/// Sharing bug needs a family-shareable product, a grace-period bug a subscription. `matrix score` reports a
/// fault whose requirement the catalog does not meet as "not applicable" and scores over the others.
public enum CatalogRequirement: String, Sendable, Hashable, CaseIterable {
    /// At least one product of any type.
    case anyProduct
    /// A product that grants access: a non-consumable, an auto-renewable or a non-renewing subscription.
    case accessProduct
    /// A consumable: the one kind of content the app delivers and keeps itself.
    case consumable
    /// An auto-renewable subscription.
    case autoRenewable
    /// A subscription group with two or more levels (`groupNumber`), so that an upgrade is possible. Within one
    /// level a crossgrade moves between products of equal value, which grant the same access.
    case groupWithSeveralLevels
    /// A family-shareable non-consumable or auto-renewable subscription (the types Family Sharing covers).
    case familyShareableProduct
    /// A family-shareable auto-renewable subscription: a member can hold it through the family and on their own,
    /// and then has two statuses in its group.
    case familyShareableSubscription
    /// A non-renewing subscription.
    case nonRenewable
    /// A product a refund or a Family Sharing revocation can take back: a non-consumable or an auto-renewable
    /// subscription (the products `matrix init` writes refund cases for).
    case revocableProduct
    /// A plan change that takes effect at the next renewal: a group with two levels (a downgrade), or a level with
    /// two subscriptions of different durations (a crossgrade at the next renewal).
    case deferredPlanChange
    /// A tier granted by products that do not replace each other: subscriptions of two groups, or a subscription
    /// and another product. Depends on the matrix's tiers, not only on the catalog.
    case tierOfSeveralSources

    /// The requirement in words, for "not applicable: needs …".
    public var summary: String {
        switch self {
        case .anyProduct: "a product"
        case .accessProduct: "a product that grants access (non-consumable or subscription)"
        case .consumable: "a consumable (the only content the app delivers and keeps itself)"
        case .autoRenewable: "an auto-renewable subscription"
        case .groupWithSeveralLevels: "a subscription group with two or more levels (an upgrade)"
        case .familyShareableProduct: "a family-shareable non-consumable or auto-renewable subscription"
        case .familyShareableSubscription: "a family-shareable auto-renewable subscription"
        case .nonRenewable: "a non-renewing subscription"
        case .revocableProduct: "a non-consumable or auto-renewable subscription a refund can take back"
        case .deferredPlanChange: "a plan change that takes effect at the next renewal (a downgrade, or a crossgrade to another duration)"
        case .tierOfSeveralSources: "a tier granted by subscriptions of two groups, or by a subscription and another product"
        }
    }

    /// Whether `matrix` (its catalog, and for ``tierOfSeveralSources`` its tiers) meets the requirement.
    public func isMet(by matrix: Matrix) -> Bool {
        let catalog = matrix.catalog
        let products = catalog.products
        switch self {
        case .anyProduct:
            return !products.isEmpty
        case .accessProduct:
            return products.contains { $0.type != .consumable }
        case .consumable:
            return products.contains { $0.type == .consumable }
        case .autoRenewable:
            return products.contains { $0.type == .autoRenewable }
        case .groupWithSeveralLevels:
            return catalog.subscriptionGroups.contains { group in
                Set(group.productIDs.compactMap { catalog.product($0).map { $0.groupNumber ?? 1 } }).count >= 2
            }
        case .familyShareableProduct:
            return products.contains { $0.familyShareable && ($0.type == .nonConsumable || $0.type == .autoRenewable) }
        case .familyShareableSubscription:
            return products.contains { $0.familyShareable && $0.type == .autoRenewable }
        case .nonRenewable:
            return products.contains { $0.type == .nonRenewable }
        case .revocableProduct:
            return products.contains { $0.type == .nonConsumable || $0.type == .autoRenewable }
        case .deferredPlanChange:
            return catalog.subscriptionGroups.contains { group in
                let members = group.productIDs.compactMap { catalog.product($0) }
                if Set(members.map { $0.groupNumber ?? 1 }).count >= 2 { return true }
                return Dictionary(grouping: members, by: { $0.groupNumber ?? 1 }).values.contains { level in
                    Set(level.compactMap(\.recurringSubscriptionPeriod)).count >= 2
                }
            }
        case .tierOfSeveralSources:
            return matrix.tiers.contains { ReferenceApp.hasSeveralSources($0, in: catalog) }
        }
    }
}

extension AppFault {
    /// What the catalog must offer for the fault to change anything the app shows.
    ///
    /// The rule per fault: faults of the purchase path, the updates listener and restore show with any product
    /// (a consumable shows them through its balance); `dropsProcessedTransactionIds` shows only when a
    /// transaction the app processed comes back changed (a refund or revocation of something that grants access:
    /// a process killed at StoreKit's surface dies before the app marks anything); faults of the entitlement set need a product that grants
    /// access; faults of consumable delivery need a consumable; subscription-life faults need an
    /// auto-renewable subscription; `keepsUpgradedProduct` needs a group with two levels;
    /// `ignoresFamilySharing` a family-shareable product; `nonRenewingNeverExpires` a non-renewing subscription;
    /// `hardCodedPrice` any product (its price shows wrong in another storefront); `revocationLeftToServer` a product
    /// a refund can take back; `deferredChangeTreatedAsFailure` a plan change at the next renewal;
    /// `tierFromNewestTransaction` a tier of products that do not replace each other; `firstStatusOnly` a
    /// family-shareable subscription (a member's own subscription beside the shared one gives two statuses).
    public var requirement: CatalogRequirement {
        switch self {
        case .lateUpdatesListener, .pendingTreatedAsFailure, .ignoresPurchaseResult, .restoreReportsSuccess, .hardCodedPrice:
            .anyProduct
        case .dropsProcessedTransactionIds, .entitlementSetNeverCleared, .pendingUnlocks, .entitlementsReadOnceAtLaunch,
             .localStorageEntitlements:
            .accessProduct
        case .finishBeforeDelivery, .creditsConsumablePerEvent, .consumablesNeverFinished:
            .consumable
        case .deniesGracePeriod, .grantsBillingRetry, .expiredSubscriptionKept, .cachesExpirationDate, .computesExpiryFromCalendar:
            .autoRenewable
        case .keepsUpgradedProduct:
            .groupWithSeveralLevels
        case .ignoresFamilySharing:
            .familyShareableProduct
        case .firstStatusOnly:
            .familyShareableSubscription
        case .nonRenewingNeverExpires:
            .nonRenewable
        case .revocationLeftToServer:
            .revocableProduct
        case .deferredChangeTreatedAsFailure:
            .deferredPlanChange
        case .tierFromNewestTransaction:
            .tierOfSeveralSources
        }
    }

    /// Whether the fault can show in an app selling `matrix`'s products under its tiers.
    public func isApplicable(to matrix: Matrix) -> Bool {
        requirement.isMet(by: matrix)
    }
}
