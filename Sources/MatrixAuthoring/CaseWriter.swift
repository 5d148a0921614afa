import Foundation
import MatrixJSON
import MatrixModel

/// Writes the cases of a generated matrix from a ``CatalogSurvey``: the patterns of `matrices/release.json`
/// applied to every product the catalog has.
struct CaseWriter {
    let survey: CatalogSurvey
    private(set) var drafts: [CaseDraft] = []
    private var caseIDs = UniqueNames()

    init(survey: CatalogSurvey) {
        self.survey = survey
    }

    /// The kinds in the order the matrix lists them.
    static let kindOrder = [
        "fresh-purchase", "cancel", "pending", "restore", "renewal", "cancellation", "grace-period", "billing-retry", "refund",
        "upgrade", "downgrade", "crossgrade", "offer", "price-increase", "family-sharing", "environment-limit", "consumable", "non-renewing",
    ]

    /// Every case, catalog-wide cases first within each kind, kinds in ``kindOrder``.
    static func cases(for survey: CatalogSurvey) -> [CaseDraft] {
        var writer = CaseWriter(survey: survey)
        writer.writeProductCases()
        writer.writeCatalogCases()
        writer.writeGroupCases()
        writer.writeEnvironmentLimitCases()
        let rank = Dictionary(uniqueKeysWithValues: kindOrder.enumerated().map { ($1, $0) })
        return writer.drafts.enumerated()
            .sorted { (rank[$0.element.kind] ?? kindOrder.count, $0.offset) < (rank[$1.element.kind] ?? kindOrder.count, $1.offset) }
            .map(\.element)
    }

    mutating func writeProductCases() {
        for product in survey.products {
            switch product.type {
            case .nonConsumable: writeNonConsumableCases(product)
            case .autoRenewable: writeSubscriptionCases(product)
            case .consumable: writeConsumableCases(product)
            case .nonRenewable: writeNonRenewingCases(product)
            }
        }
    }

    // MARK: Building blocks

    /// Adds a case on a new account named after its ID, or on `accounts` (the first is the acting one unless
    /// `acting` names another).
    mutating func add(_ kind: String, _ name: String, _ description: String, store: [(String, JSONText)] = [],
                      accounts: [CaseDraft.AccountDraft]? = nil, acting: String? = nil, steps: [JSONText]) {
        let id = caseIDs.claim(["\(kind)/\(name)"])
        let alias = Self.alias(id)
        let list = accounts ?? [CaseDraft.AccountDraft(alias: alias, description: "new account, no purchases")]
        drafts.append(CaseDraft(id: id, kind: kind, account: acting ?? list[0].alias, description: description, store: store,
                                accounts: list, steps: steps))
    }

    /// The account alias for a case ID: `refund/pro` → `refund-pro`.
    static func alias(_ caseID: String) -> String {
        caseID.replacingOccurrences(of: "/", with: "-")
    }

    /// The alias the next case of `kind` and `name` will get, for cases that name their accounts.
    func nextAlias(_ kind: String, _ name: String) -> String {
        var copy = caseIDs
        return Self.alias(copy.claim(["\(kind)/\(name)"]))
    }

    func step(_ action: Action, _ product: CatalogProduct? = nil, _ parameters: [(String, JSONText)] = [], account: String? = nil,
              expect: Expect? = nil) -> JSONText {
        var members: [(String, JSONText)] = [("action", .string(action.rawValue))]
        if let product { members.append(("product", .string(product.productID))) }
        members += parameters
        if let account { members.append(("account", .string(account))) }
        if let expect { members.append(("expect", expect.json)) }
        return .inline(.object(members))
    }

    /// The tiers a set of products grants, sorted.
    func access(_ products: [CatalogProduct]) -> [String] {
        Array(Set(products.compactMap { survey.tier($0) })).sorted()
    }

    /// The notification a purchase of the product sends.
    func purchaseNotification(_ product: CatalogProduct) -> String {
        product.type == .autoRenewable ? "SUBSCRIBED/INITIAL_BUY" : "ONE_TIME_CHARGE"
    }

    /// `subscriptionStatus` of the product's group, when the group's name is unambiguous.
    func status(_ product: CatalogProduct, _ state: String) -> [(String, String)] {
        guard let name = survey.group(of: product)?.expectationName else { return [] }
        return [(name, state)]
    }

    /// What the app shows once it has delivered one purchase of `product`: its tier, or its balance credited.
    func delivered(_ product: CatalogProduct, times: Int = 1, base: [CatalogProduct] = []) -> Expect {
        var expect = Expect(access: access(base + (product.type == .consumable ? [] : [product])))
        if let balance = survey.balances[product.productID] {
            expect.balance = [(balance.name, balance.amount * times)]
        }
        return expect
    }

    /// What the app shows before `product` is delivered: the tiers of `base` only, its balance at 0.
    func undelivered(_ product: CatalogProduct, base: [CatalogProduct] = []) -> Expect {
        var expect = Expect(access: access(base))
        if let balance = survey.balances[product.productID] { expect.balance = [(balance.name, 0)] }
        return expect
    }

    /// The first product of the first type in `types` the catalog has.
    func first(_ types: [ProductType], excluding excluded: CatalogProduct? = nil) -> CatalogProduct? {
        for type in types {
            if let product = survey.products(of: type).first(where: { $0.productID != excluded?.productID }) { return product }
        }
        return nil
    }
}
