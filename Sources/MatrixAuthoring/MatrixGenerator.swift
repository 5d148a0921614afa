import MatrixJSON
import MatrixModel

/// Writes a complete acceptance matrix for a StoreKit configuration: the engine of `matrix init`.
///
/// Pure: a catalog in, the matrix's bytes out (stable, pretty, one step per line, with `$schema`). What it
/// writes:
/// - **tiers**: one per non-consumable and per non-renewing subscription; per subscription group one tier, or
///   one per level when the group has several levels (so upgrades and downgrades change access). Names are
///   slugs of display names (`"Plus Monthly"` → `plus-monthly`), else reference names, else product IDs; a
///   display name several products share names none of them.
/// - **consumables**: `"100 Coins"` credits 100 to `coins`; other names credit 1 to a balance named after the
///   product.
/// - **nonRenewing**: the duration a name names (``NonRenewingDuration``), else one year (`P1Y`); each such
///   choice is listed in ``Output/notes``.
/// - **accounts**: one per case (two for Family Sharing: organizer and member).
/// - **cases**: for every product the cases its type needs, for every group with several levels upgrades,
///   downgrades and crossgrades, once per catalog cancel, Ask to Buy and restore, and the Sandbox and
///   TestFlight renewal limits on the first subscription. `docs/matrix-init.md` lists them.
public enum MatrixGenerator {
    /// What the caller decides about the matrix.
    public struct Options: Sendable, Hashable {
        /// The `catalog` value: the `.storekit` file's path relative to where the matrix will be written.
        public var catalogReference: String
        /// `app.bundleId`; `nil` guesses it from the product IDs (``Output/guessedBundleId``).
        public var bundleId: String?
        /// The matrix's `name`.
        public var name: String
        /// The `$schema` value, a path relative to the matrix or a URL; `nil` writes none.
        public var schemaReference: String?

        /// Options with the defaults `matrix init` uses: name `release`, `$schema` `../schema/matrix.schema.json`.
        public init(catalogReference: String, bundleId: String? = nil, name: String = "release",
                    schemaReference: String? = "../schema/matrix.schema.json") {
            self.catalogReference = catalogReference
            self.bundleId = bundleId
            self.name = name
            self.schemaReference = schemaReference
        }
    }

    /// The generated matrix and what the caller should tell the user about it.
    public struct Output: Sendable, Hashable {
        /// The matrix, UTF-8 JSON ending in a newline.
        public var bytes: [UInt8]
        /// How many cases, tiers and accounts the matrix has.
        public var caseCount: Int
        /// See ``caseCount``.
        public var tierCount: Int
        /// See ``caseCount``.
        public var accountCount: Int
        /// The bundle ID written when none was given, guessed from the product IDs.
        public var guessedBundleId: String?
        /// Choices the user should check, one sentence each (assumed non-renewing durations, consumable amounts).
        public var notes: [String]
    }

    /// Why no matrix can be written for a catalog.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong and what to do.
        public var message: String
        /// The ``message``.
        public var description: String { message }
    }

    /// Writes the matrix for `catalog`.
    ///
    /// - Throws: ``Problem`` when the catalog has no product to test.
    public static func generate(_ catalog: StoreKitConfiguration, options: Options) throws(Problem) -> Output {
        guard !catalog.products.isEmpty else {
            throw Problem(message: "the catalog has no products; add products in Xcode's StoreKit configuration editor first")
        }
        let survey = CatalogSurvey(catalog)
        let cases = CaseWriter.cases(for: survey)
        let bundleId = options.bundleId ?? survey.guessedBundleID

        var members: [(String, JSONText)] = []
        if let schema = options.schemaReference { members.append(("$schema", .string(schema))) }
        members += [
            ("schemaVersion", .int(Matrix.supportedSchemaVersion)),
            ("name", .string(options.name)),
            ("description", .string(description(survey, cases: cases))),
            ("app", .object([("bundleId", .string(bundleId))] + (options.bundleId == nil ? [("bundleIdGuessed", .bool(true))] : []))),
            ("catalog", .string(options.catalogReference)),
            ("tiers", .object(survey.tiers.map { ($0.name, .array($0.productIDs.map(JSONText.string))) })),
        ]
        let consumables = survey.products(of: .consumable).compactMap { product in
            survey.balances[product.productID].map { (product.productID, JSONText.object([("balance", .string($0.name)), ("amount", .int($0.amount))])) }
        }
        if !consumables.isEmpty { members.append(("consumables", .object(consumables))) }
        let nonRenewing = survey.products(of: .nonRenewable).compactMap { product in
            survey.durations[product.productID].map { (product.productID, JSONText.object([("duration", .string($0.duration.description))])) }
        }
        if !nonRenewing.isEmpty { members.append(("nonRenewing", .object(nonRenewing))) }
        var accounts: [(String, JSONText)] = []
        for draft in cases {
            for account in draft.accounts where !accounts.contains(where: { $0.0 == account.alias }) {
                accounts.append((account.alias, account.json))
            }
        }
        members.append(("accounts", .object(accounts)))
        members.append(("cases", .array(cases.map(\.json))))

        return Output(bytes: Array((JSONText.object(members).text(.authoring) + "\n").utf8), caseCount: cases.count, tierCount: survey.tiers.count,
                      accountCount: accounts.count, guessedBundleId: options.bundleId == nil ? bundleId : nil, notes: notes(survey))
    }

    static func description(_ survey: CatalogSurvey, cases: [CaseDraft]) -> String {
        var counts: [(ProductType, String)] = [(.nonConsumable, "non-consumable"), (.autoRenewable, "auto-renewable subscription"),
                                               (.nonRenewable, "non-renewing subscription"), (.consumable, "consumable")]
        counts = counts.filter { !survey.products(of: $0.0).isEmpty }
        let parts = counts.map { type, noun in
            let count = survey.products(of: type).count
            return "\(count) \(noun)\(count == 1 ? "" : "s")"
        }
        return "Acceptance matrix written by matrix init for " + parts.joined(separator: ", ")
            + ": every purchase and entitlement flow each product needs before submission."
    }

    /// What init chose for the catalog's products, one sentence each.
    /// - Parameter only: the products to describe (``MatrixUpdater``'s new ones); `nil` for every product.
    static func notes(_ survey: CatalogSurvey, only: Set<String>? = nil) -> [String] {
        var notes: [String] = []
        func described(_ product: CatalogProduct) -> Bool { only?.contains(product.productID) ?? true }
        for product in survey.products(of: .nonRenewable) where described(product) {
            guard let duration = survey.durations[product.productID] else { continue }
            if duration.source == nil {
                notes.append("non-renewing \(product.productID): assumed to last \(duration.duration) (its name names no period); set nonRenewing to what the app grants")
            } else {
                notes.append("non-renewing \(product.productID): lasts \(duration.duration), read from \"\(duration.source ?? "")\"")
            }
        }
        for product in survey.products(of: .consumable) where described(product) {
            guard let balance = survey.balances[product.productID] else { continue }
            notes.append("consumable \(product.productID): credits \(balance.amount) to balance \"\(balance.name)\"")
        }
        for (group, _, products) in survey.samePlanAtSeveralLevels where products.contains(where: described) {
            let listed = products.map { "\(survey.label($0)) (level \($0.groupNumber ?? 1), tier \(survey.tier($0) ?? "?"))" }
            let ids = products.map { "\"\($0.productID)\"" }.joined(separator: ", ")
            notes.append("group \"\(group.name)\": " + listed.joined(separator: " and ") + " look like one plan billed over different "
                + "periods, but they are at different levels, so each has its own tier and the matrix tests upgrades and downgrades "
                + "between them. If your app grants the same access for both, merge the tiers into one (\"tiers\": {\"…\": [\(ids)]}) "
                + "and delete the upgrade and downgrade cases between them, or put them at one level in App Store Connect, where a level "
                + "ranks the level of service a subscription gives (https://developer.apple.com/documentation/storekit/product/subscriptioninfo/grouplevel)")
        }
        return notes
    }
}
