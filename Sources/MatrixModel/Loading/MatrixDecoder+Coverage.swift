import MatrixJSON

/// Coverage warnings: what a matrix leaves untested although it looks complete.
extension MatrixDecoder {
    /// Warns (MX024) about each of ``Matrix/untestedProducts`` at the matrix's `catalog`, and each of
    /// ``Matrix/unexpectedTiers`` at its name under `tiers`.
    ///
    /// - Parameters:
    ///   - catalogField: where the matrix names its catalog, where an untested product is reported.
    ///   - tiersField: the `tiers` object, where an unexpected tier is reported at its value.
    func checkCoverage(_ matrix: Matrix, catalogField: JSONField?, tiersField: JSONField?) {
        guard catalogKnown, !matrix.cases.isEmpty else { return }
        if let catalogField {
            for product in matrix.untestedProducts {
                sink.warning(.uncovered, "catalog product \"\(product.productID)\" (\(product.type.storeKitName)) is in no tier and no case: no run tests it",
                             pointer: catalogField.pointer, at: catalogField.location,
                             hint: product.type == .consumable
                                 ? "add it to \"consumables\" with the balance it credits, or let `matrix init --update MATRIX` add it with its cases"
                                 : "add it to the tier it grants in \"tiers\", or let `matrix init --update MATRIX` add it with its cases")
            }
        }
        guard let tiersField, let object = tiersField.value.objectValue else { return }
        for tier in matrix.unexpectedTiers {
            sink.warning(.uncovered, "no case expects tier \"\(tier.name)\": a run cannot tell whether the app grants it",
                         pointer: JSONPointer.append(tiersField.pointer, tier.name), at: object[tier.name]?.location ?? tiersField.location,
                         hint: "add a step whose expect.access includes \"\(tier.name)\", e.g. after a purchase of \(tier.productIDs.first.map { "\"\($0)\"" } ?? "a product that grants it")")
        }
    }
}
