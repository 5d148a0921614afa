import MatrixJSON

/// Coverage warnings: what a matrix leaves untested although it looks complete.
extension MatrixDecoder {
    /// Warns about a catalog product that is in no tier, no `consumables` entry and no case (a step's `product`,
    /// an expected entitlement or transaction, or what an account of a case owns), and about a tier that no
    /// step's `expect.access` names: a run cannot tell whether the app grants it.
    ///
    /// - Parameters:
    ///   - catalogField: where the matrix names its catalog, where an untested product is reported.
    ///   - tiersField: the `tiers` object, where an unexpected tier is reported at its name.
    func checkCoverage(tiers: [Tier], consumables: [String: ConsumableSpec], accounts: [Account], cases: [MatrixCase],
                       catalogField: JSONField?, tiersField: JSONField?) {
        guard catalogKnown, !cases.isEmpty else { return }
        var used = Set<String>()
        var expectedTiers = Set<String>()
        let owned = Dictionary(accounts.map { ($0.alias, $0.owns) }, uniquingKeysWith: { first, _ in first })
        for matrixCase in cases {
            used.formUnion(owned[matrixCase.account] ?? [])
            for step in matrixCase.steps {
                if let product = step.product { used.insert(product) }
                if let account = step.account { used.formUnion(owned[account] ?? []) }
                guard let expect = step.expect else { continue }
                used.formUnion(expect.entitlements ?? [])
                if let product = expect.transaction?.product { used.insert(product) }
                expectedTiers.formUnion(expect.access ?? [])
            }
        }
        let tiered = Set(tiers.flatMap(\.productIDs)).union(consumables.keys)
        if let catalogField {
            for product in catalog.products where !tiered.contains(product.productID) && !used.contains(product.productID) {
                sink.warning(.uncovered, "catalog product \"\(product.productID)\" (\(product.type.storeKitName)) is in no tier and no case: no run tests it",
                             pointer: catalogField.pointer, at: catalogField.location,
                             hint: product.type == .consumable
                                 ? "add it to \"consumables\" with the balance it credits, then `matrix init --update MATRIX` adds its cases"
                                 : "add it to the tier it grants in \"tiers\", then `matrix init --update MATRIX` adds its cases")
            }
        }
        guard let tiersField, let object = tiersField.value.objectValue else { return }
        for tier in tiers where !expectedTiers.contains(tier.name) {
            sink.warning(.uncovered, "no case expects tier \"\(tier.name)\": a run cannot tell whether the app grants it",
                         pointer: JSONPointer.append(tiersField.pointer, tier.name), at: object[tier.name]?.location ?? tiersField.location,
                         hint: "add a step whose expect.access includes \"\(tier.name)\", e.g. after a purchase of \(tier.productIDs.first.map { "\"\($0)\"" } ?? "a product that grants it")")
        }
    }
}
