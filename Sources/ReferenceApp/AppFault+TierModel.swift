import MatrixModel

extension AppFault {
    /// Why the fault cannot show in a run of `matrix`, or `nil` when it can.
    ///
    /// Beyond the catalog (``CatalogRequirement``), the matrix's tiers decide what the app's access can show: an
    /// app that keeps the upgraded-from product (`keepsUpgradedProduct`) grants the same access as a correct one
    /// when every product a group can be upgraded from grants no tier the product above it lacks, for instance
    /// when two levels of a group grant the same tier. An upgrade moves to a higher level of service, a lower
    /// level number (`Product.SubscriptionInfo.groupLevel`,
    /// https://developer.apple.com/documentation/storekit/product/subscriptioninfo/grouplevel).
    public func notApplicableReason(in matrix: Matrix) -> String? {
        guard isApplicable(to: matrix) else {
            return "needs \(requirement.summary); " + (requirement == .tierOfSeveralSources ? "the matrix's tiers have none" : "the catalog has none")
        }
        guard self == .keepsUpgradedProduct, Self.upgradesThatShow(in: matrix).isEmpty else { return nil }
        let groups = matrix.catalog.subscriptionGroups.filter { Self.levels(of: $0, in: matrix.catalog).count >= 2 }
        let described = groups.map { group in
            let tiers = Set(group.productIDs.flatMap { matrix.tiers(granting: $0) }).sorted()
            return "\"\(group.name)\" (\(tiers.isEmpty ? "no tier" : tiers.map { "\"\($0)\"" }.joined(separator: ", ")))"
        }
        return "every upgrade in group \(described.joined(separator: ", ")) keeps the tiers the old product granted, "
            + "so access is the same whichever product the app keeps; give the levels different tiers to test it"
    }

    /// The products an upgrade starts from whose tiers the product above them lacks: where keeping the upgraded-
    /// from product shows in access.
    static func upgradesThatShow(in matrix: Matrix) -> [String] {
        matrix.catalog.subscriptionGroups.flatMap { group -> [String] in
            let levels = levels(of: group, in: matrix.catalog)
            return group.productIDs.filter { lower in
                guard let lowerLevel = levels[lower] else { return false }
                let kept = Set(matrix.tiers(granting: lower))
                return group.productIDs.contains { higher in
                    (levels[higher] ?? lowerLevel) < lowerLevel && !kept.subtracting(matrix.tiers(granting: higher)).isEmpty
                }
            }
        }
    }

    /// Each subscription's level in `group` (`groupNumber`, 1 = highest).
    static func levels(of group: SubscriptionGroup, in catalog: StoreKitConfiguration) -> [String: Int] {
        Dictionary(group.productIDs.compactMap { id in catalog.product(id).map { (id, $0.groupNumber ?? 1) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The kind of case (as `matrix init` writes it) in which the fault shows.
    public var catchingKind: String {
        switch self {
        case .lateUpdatesListener, .ignoresPurchaseResult, .hardCodedPrice: "fresh-purchase"
        case .dropsProcessedTransactionIds, .entitlementSetNeverCleared, .revocationLeftToServer, .tierFromNewestTransaction: "refund"
        case .pendingTreatedAsFailure, .pendingUnlocks: "pending"
        case .finishBeforeDelivery, .creditsConsumablePerEvent, .consumablesNeverFinished: "consumable"
        case .deniesGracePeriod: "grace-period"
        case .grantsBillingRetry: "billing-retry"
        case .keepsUpgradedProduct: "upgrade"
        case .nonRenewingNeverExpires: "non-renewing"
        case .restoreReportsSuccess, .localStorageEntitlements: "restore"
        case .entitlementsReadOnceAtLaunch, .cachesExpirationDate, .computesExpiryFromCalendar: "renewal"
        case .ignoresFamilySharing, .firstStatusOnly: "family-sharing"
        case .deferredChangeTreatedAsFailure: "downgrade"
        case .expiredSubscriptionKept: "cancellation"
        }
    }

    /// A case that would catch the fault in `matrix`: its kind and a product it should act on, preferring a
    /// product no case of that kind uses yet (`a grace-period case on com.example.plus.monthly`); when every such
    /// product has one, the step or expectation that case lacks (`a step or expectation in grace-period/plus (the
    /// grace-period case on com.example.plus.monthly, which misses it) that shows the fault`).
    public func suggestedCase(in matrix: Matrix) -> String {
        let catalog = matrix.catalog
        let granting = Set(matrix.tiers.flatMap(\.productIDs))
        let products: [String]
        switch requirement {
        case .anyProduct:
            products = catalog.products.filter { granting.contains($0.productID) }.map(\.productID)
                + catalog.products.filter { $0.type == .consumable }.map(\.productID)
        case .accessProduct:
            products = catalog.products.filter { $0.type != .consumable && granting.contains($0.productID) }.map(\.productID)
        case .consumable:
            products = catalog.products.filter { $0.type == .consumable }.map(\.productID)
        case .autoRenewable:
            products = catalog.products.filter { $0.type == .autoRenewable }.map(\.productID)
        case .groupWithSeveralLevels:
            products = Self.upgradesThatShow(in: matrix)
        case .familyShareableProduct:
            products = catalog.products.filter { $0.familyShareable && ($0.type == .nonConsumable || $0.type == .autoRenewable) }.map(\.productID)
        case .familyShareableSubscription:
            products = catalog.products.filter { $0.familyShareable && $0.type == .autoRenewable }.map(\.productID)
        case .nonRenewable:
            products = catalog.products.filter { $0.type == .nonRenewable }.map(\.productID)
        case .revocableProduct:
            products = catalog.products.filter { ($0.type == .nonConsumable || $0.type == .autoRenewable) && granting.contains($0.productID) }
                .map(\.productID)
        case .deferredPlanChange:
            products = catalog.products.filter { $0.type == .autoRenewable }.map(\.productID)
        case .tierOfSeveralSources:
            products = matrix.tiers.filter { ReferenceApp.hasSeveralSources($0, in: catalog) }.flatMap(\.productIDs)
        }
        let kind = catchingKind
        let ofKind = matrix.cases.filter { $0.kind == kind }
        let covered = Set(ofKind.flatMap { $0.steps.compactMap(\.product) })
        if let product = products.first(where: { !covered.contains($0) }) {
            return "a\(kind.first.map { "aeiou".contains($0) } == true ? "n" : "") \(kind) case on \(product)"
        }
        // Every product it could use has a case of the kind already, which misses the fault: a step or an
        // expectation of that case is what is missing, not another case.
        if let product = products.first, let existing = ofKind.first(where: { $0.steps.contains { $0.product == product } }) {
            return "a step or expectation in \(existing.id) (the \(kind) case on \(product), which misses it) that shows the fault"
        }
        return "a\(kind.first.map { "aeiou".contains($0) } == true ? "n" : "") \(kind) case"
    }
}

extension Matrix {
    /// The tiers `productID` grants, in `tiers` order.
    func tiers(granting productID: String) -> [String] {
        tiers.filter { $0.productIDs.contains(productID) }.map(\.name)
    }
}
