import MatrixJSON
import MatrixModel

/// Adds to an edited matrix what `matrix init` would write for catalog products the matrix does not test yet:
/// the engine of `matrix init --update MATRIX`.
///
/// Pure: the matrix's bytes and its loaded model in, the updated bytes out. Only insertions are made, so every
/// byte of the matrix as the team edited it is kept: new tiers, `consumables` and `nonRenewing` entries,
/// accounts and cases are appended to their sections (a section that is missing is added after `tiers`), and a
/// new product that `init` would put in the tier of a product the matrix already has joins that tier. The new
/// products are ``Matrix/untestedProducts``: in no tier, no `consumables` entry and no case. The cases added
/// are those of ``MatrixGenerator`` that act on a new product and whose id the matrix does not have yet (a
/// catalog-wide case such as `cancel/purchase-sheet` is there already); their tier names follow the matrix's own tiers,
/// and their ids and account aliases never collide with the matrix's.
public enum MatrixUpdater {
    /// The updated matrix and what was added.
    public struct Output: Sendable, Hashable {
        /// The matrix, UTF-8 JSON; the input unchanged when nothing was added.
        public var bytes: [UInt8]
        /// The product IDs cases were added for, in catalog order.
        public var addedProducts: [String]
        /// The ids of the cases added, in matrix order.
        public var addedCases: [String]
        /// Tiers added, and tiers of the matrix a new product joined (`name` or `name (+ product)`).
        public var tierChanges: [String]
        /// Aliases of the accounts added.
        public var addedAccounts: [String]
        /// What was chosen for the new products, as `matrix init` notes it (an assumed duration, a balance).
        public var notes: [String]
    }

    /// Why a matrix cannot be updated in place.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong and what to do.
        public var message: String
        /// The ``message``.
        public var description: String { message }
    }

    /// Updates `bytes`, the text `matrix` was loaded from.
    ///
    /// - Throws: ``Problem`` when the text is not a JSON object with `tiers`, `accounts` and `cases` sections.
    public static func update(_ bytes: [UInt8], matrix: Matrix) throws(Problem) -> Output {
        let new = matrix.untestedProducts.map(\.productID)
        guard !new.isEmpty else { return Output(bytes: bytes, addedProducts: [], addedCases: [], tierChanges: [], addedAccounts: [], notes: []) }
        let newSet = Set(new)
        let survey = CatalogSurvey(matrix.catalog)

        // Tiers: a generated tier of products the matrix already tiers is that tier; otherwise a new one.
        var tierNames: [String: String] = [:]
        var appendToTier: [(tier: String, products: [String])] = []
        var newTiers: [(String, JSONText)] = []
        var tierChanges: [String] = []
        var takenTiers = Set(matrix.tiers.map(\.name))
        for tier in survey.tiers {
            let added = tier.productIDs.filter { newSet.contains($0) }
            let existing = Set(tier.productIDs.filter { !newSet.contains($0) }.flatMap { id in matrix.tiers.filter { $0.productIDs.contains(id) }.map(\.name) })
            if existing.count == 1, let name = existing.first {
                tierNames[tier.name] = name
                if !added.isEmpty {
                    appendToTier.append((name, added))
                    tierChanges.append("\(name) (+ \(added.joined(separator: ", ")))")
                }
            } else if !added.isEmpty {
                let name = unique(tier.name, among: &takenTiers)
                tierNames[tier.name] = name
                newTiers.append((name, .array(added.map(JSONText.string))))
                tierChanges.append(name)
            }
        }

        // Cases that act on a new product, with the matrix's tier names, free ids and free aliases.
        var takenIDs = Set(matrix.cases.map(\.id))
        var takenAliases = Set(matrix.accounts.map(\.alias))
        var addedAccounts: [(String, JSONText)] = []
        var cases: [JSONText] = []
        var caseIDs: [String] = []
        // A generated id the matrix already has is a case it already has (a catalog-wide cancel or restore case).
        for draft in CaseWriter.cases(for: survey) where !takenIDs.contains(draft.id) && !products(of: draft).isDisjoint(with: newSet) {
            var draft = draft
            draft.id = unique(draft.id, among: &takenIDs)
            var aliases: [String: String] = [:]
            for account in draft.accounts {
                if let existing = matrix.account(account.alias), existing.owns == account.owns, existing.familyOrganizer == account.familyOrganizer {
                    continue
                }
                if let added = addedAccounts.first(where: { $0.0 == account.alias }), added.1.text(.authoring) == account.json.text(.authoring) {
                    continue
                }
                aliases[account.alias] = unique(account.alias, among: &takenAliases)
            }
            draft.account = aliases[draft.account] ?? draft.account
            draft.accounts = draft.accounts.map { account in
                var account = account
                account.alias = aliases[account.alias] ?? account.alias
                account.familyOrganizer = account.familyOrganizer.map { aliases[$0] ?? $0 }
                return account
            }
            draft.steps = draft.steps.map { renamed($0, tiers: tierNames, accounts: aliases) }
            for account in draft.accounts where aliases.values.contains(account.alias) && !addedAccounts.contains(where: { $0.0 == account.alias }) {
                addedAccounts.append((account.alias, account.json))
            }
            cases.append(draft.json)
            caseIDs.append(draft.id)
        }

        let consumables = new.compactMap { id in
            survey.balances[id].map { (id, JSONText.object([("balance", .string($0.name)), ("amount", .int($0.amount))])) }
        }
        let nonRenewing = new.compactMap { id in
            survey.durations[id].map { (id, JSONText.object([("duration", .string($0.duration.description))])) }
        }

        var editor = try SourceEditor(bytes)
        for (tier, products) in appendToTier {
            try editor.append(products.map(JSONText.string), toArrayAt: ["tiers", tier])
        }
        try editor.append(members: newTiers, toObjectAt: ["tiers"])
        try editor.append(members: consumables, toObjectAt: ["consumables"], creatingAfter: "tiers")
        try editor.append(members: nonRenewing, toObjectAt: ["nonRenewing"], creatingAfter: "tiers")
        try editor.append(members: addedAccounts, toObjectAt: ["accounts"])
        try editor.append(cases, toArrayAt: ["cases"])
        return Output(bytes: editor.result(), addedProducts: new, addedCases: caseIDs, tierChanges: tierChanges,
                      addedAccounts: addedAccounts.map(\.0), notes: MatrixGenerator.notes(survey, only: newSet))
    }

    /// `name`, or `name-2`, `name-3`… when it is taken; the result is taken from then on.
    static func unique(_ name: String, among taken: inout Set<String>) -> String {
        var candidate = name
        var number = 2
        while taken.contains(candidate) {
            candidate = "\(name)-\(number)"
            number += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// Every product ID a drafted case names: in its steps and in what its accounts own.
    static func products(of draft: CaseDraft) -> Set<String> {
        var found = Set(draft.accounts.flatMap(\.owns))
        func visit(_ value: JSONText) {
            switch value {
            case .array(let elements): elements.forEach(visit)
            case .inline(let inner): visit(inner)
            case .object(let members):
                for (key, member) in members {
                    if key == "product", case .string(let id) = member { found.insert(id) }
                    visit(member)
                }
            default: break
            }
        }
        draft.steps.forEach(visit)
        return found
    }

    /// `value` with tier names under `access` and aliases under `account` renamed.
    static func renamed(_ value: JSONText, tiers: [String: String], accounts: [String: String]) -> JSONText {
        switch value {
        case .array(let elements): return .array(elements.map { renamed($0, tiers: tiers, accounts: accounts) })
        case .inline(let inner): return .inline(renamed(inner, tiers: tiers, accounts: accounts))
        case .object(let members):
            return .object(members.map { key, member in
                switch (key, member) {
                case ("access", .array(let names)):
                    return (key, .array(names.map { name in
                        if case .string(let tier) = name { return .string(tiers[tier] ?? tier) }
                        return name
                    }))
                case ("account", .string(let alias)):
                    return (key, .string(accounts[alias] ?? alias))
                default:
                    return (key, renamed(member, tiers: tiers, accounts: accounts))
                }
            })
        default: return value
        }
    }
}
