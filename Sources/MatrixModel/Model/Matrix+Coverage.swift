/// What a matrix leaves untested although it loads: the facts behind `matrix validate`'s coverage warnings and
/// `matrix init --update`.
extension Matrix {
    /// Every product ID a case uses: a step's `product`, an expected entitlement or transaction, and what the
    /// accounts a case acts on own.
    public var productIDsInCases: Set<String> {
        var used = Set<String>()
        for matrixCase in cases {
            used.formUnion(account(matrixCase.account)?.owns ?? [])
            for step in matrixCase.steps {
                if let product = step.product { used.insert(product) }
                if let other = step.account { used.formUnion(account(other)?.owns ?? []) }
                guard let expect = step.expect else { continue }
                used.formUnion(expect.entitlements ?? [])
                if let product = expect.transaction?.product { used.insert(product) }
            }
        }
        return used
    }

    /// The catalog's products, in catalog order, that are in no tier, no `consumables` entry and no case: no run
    /// tests them (a product added to the `.storekit` file after the matrix was written).
    public var untestedProducts: [CatalogProduct] {
        let known = Set(tiers.flatMap(\.productIDs)).union(consumables.keys).union(productIDsInCases)
        return catalog.products.filter { !known.contains($0.productID) }
    }

    /// The tiers no step's `expect.access` names, in `tiers` order: a run cannot tell whether the app grants them.
    public var unexpectedTiers: [Tier] {
        let expected = Set(cases.flatMap { $0.steps.flatMap { $0.expect?.access ?? [] } })
        return tiers.filter { !expected.contains($0.name) }
    }
}
