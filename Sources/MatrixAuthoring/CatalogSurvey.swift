import Foundation
import MatrixModel

/// What `matrix init` makes of a catalog before writing cases: a unique short name per product, the tiers,
/// the consumable balances, the non-renewing durations, and the levels of each subscription group.
struct CatalogSurvey {
    /// A subscription group and its levels, highest (`groupNumber` 1) first.
    struct Group {
        var group: SubscriptionGroup
        /// The name expectations may use for the group, or `nil` when two groups share it (ambiguous).
        var expectationName: String?
        /// Levels in order of `groupNumber`, each with its subscriptions in file order.
        var levels: [(number: Int, products: [CatalogProduct])]
    }

    let catalog: StoreKitConfiguration
    /// Products in file order: `products`, `nonRenewingSubscriptions`, then each group's subscriptions.
    let products: [CatalogProduct]
    /// A unique slug per product ID, for case IDs and account aliases.
    private(set) var slugs: [String: String] = [:]
    /// Tier names in matrix order, with the products that grant each.
    private(set) var tiers: [(name: String, productIDs: [String])] = []
    /// The tier each product grants (consumables grant none).
    private(set) var tierOf: [String: String] = [:]
    /// The balance and amount each consumable credits.
    private(set) var balances: [String: (name: String, amount: Int)] = [:]
    /// The duration the app is assumed to grant each non-renewing subscription.
    private(set) var durations: [String: NonRenewingDuration] = [:]
    private(set) var groups: [Group] = []

    init(_ catalog: StoreKitConfiguration) {
        self.catalog = catalog
        products = catalog.products
        nameProducts()
        makeGroups()
        makeTiers()
        makeBalancesAndDurations()
    }

    // MARK: Queries

    func products(of type: ProductType) -> [CatalogProduct] {
        products.filter { $0.type == type }
    }

    func slug(_ product: CatalogProduct) -> String {
        slugs[product.productID] ?? Slug.fromProductID(product.productID)
    }

    func tier(_ product: CatalogProduct) -> String? {
        tierOf[product.productID]
    }

    func group(of product: CatalogProduct) -> Group? {
        groups.first { $0.group.id == product.subscriptionGroupID }
    }

    /// The catalog's storefront (`_storefront`, else the United States).
    var storefront: AppStoreStorefront {
        catalog.settings.storefront.flatMap(AppStoreStorefront.named) ?? .unitedStates
    }

    /// Another storefront than the catalog's, with another currency, for the case that checks prices: the United
    /// Kingdom, or France when the catalog's is in pounds.
    var otherStorefront: AppStoreStorefront {
        let candidate = storefront.currency == "GBP" ? "FRA" : "GBR"
        return AppStoreStorefront.named(candidate) ?? .unitedStates
    }

    /// What the first transaction of a new subscriber to `product` charges, milliunits: the introductory offer's
    /// price (nothing for a free trial) when the product has one, else the product's price.
    /// Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer
    func firstCharge(_ product: CatalogProduct) -> Int64 {
        guard let intro = product.introductoryOffer else { return product.priceMilliunits }
        return intro.paymentMode == .freeTrial ? 0 : CatalogProduct.milliunits(intro.displayPrice ?? "0")
    }

    /// How many transactions the introductory offer of `product` covers: its periods paying as you go, else one.
    func introductoryTransactions(_ product: CatalogProduct) -> Int {
        guard let intro = product.introductoryOffer else { return 0 }
        return intro.paymentMode == .payAsYouGo ? max(1, intro.numberOfPeriods) : 1
    }

    /// The payment mode of the product's introductory offer, as expectations write it, or `none`.
    func introductoryOfferMode(_ product: CatalogProduct) -> String {
        switch product.introductoryOffer?.paymentMode {
        case nil: "none"
        case .freeTrial?: "freeTrial"
        case .payAsYouGo?: "payAsYouGo"
        case .payUpFront?: "payUpFront"
        }
    }

    /// Products whose purchase grants a tier: non-consumables, subscriptions, non-renewing subscriptions.
    var accessProducts: [CatalogProduct] {
        products.filter { $0.type != .consumable }
    }

    /// A name for a product in sentences: its display name, else its reference name, else its ID.
    func label(_ product: CatalogProduct) -> String {
        for name in [product.displayName, product.referenceName] {
            if let name = name?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty { return name }
        }
        return product.productID
    }

    /// Groups whose levels hold products that look like one plan billed over different periods ("Pro Monthly"
    /// at level 1, "Pro Yearly" at level 2): their names are the same once the words of a period are left out.
    /// Each gets a tier per level, as the levels say; the notes suggest merging them when the app grants the same
    /// access for both.
    var samePlanAtSeveralLevels: [(group: SubscriptionGroup, plan: String, products: [CatalogProduct])] {
        var found: [(SubscriptionGroup, String, [CatalogProduct])] = []
        for group in groups where group.levels.count >= 2 {
            var byPlan: [String: [CatalogProduct]] = [:]
            var order: [String] = []
            for level in group.levels {
                for product in level.products {
                    let plan = Self.planName(label(product))
                    guard !plan.isEmpty else { continue }
                    if byPlan[plan] == nil { order.append(plan) }
                    byPlan[plan, default: []].append(product)
                }
            }
            for plan in order {
                let products = byPlan[plan] ?? []
                if Set(products.map { $0.groupNumber ?? 1 }).count >= 2 { found.append((group.group, plan, products)) }
            }
        }
        return found
    }

    /// A product name without the words of a billing period or price: `"Pro Monthly"` and `"Pro – Yearly $49"`
    /// are both `pro`.
    static func planName(_ name: String) -> String {
        let periodWords: Set<String> = ["week", "weeks", "weekly", "month", "months", "monthly", "year", "years", "yearly", "annual",
                                        "annually", "quarter", "quarterly", "semiannual", "day", "days", "daily", "plan",
                                        "subscription", "sub", "billed", "per", "a", "an", "every", "mo", "yr", "wk"]
        let words = name.lowercased().split { !$0.isLetter }.map(String.init)
        return words.filter { !periodWords.contains($0) }.joined(separator: " ")
    }

    // MARK: Naming

    /// Candidate names per product: display name, reference name, product ID, each only when usable and not
    /// shared with another product (several products called "Left Pocket Pro" name none of them).
    private func candidates(_ product: CatalogProduct, counts: [String: Int]) -> [String] {
        var result: [String] = []
        for name in [product.displayName, product.referenceName] {
            let slug = Slug.make(name ?? "")
            if Slug.isUsable(slug), counts[slug, default: 0] == 1, !result.contains(slug) { result.append(slug) }
        }
        result.append(Slug.fromProductID(product.productID))
        return result
    }

    private mutating func nameProducts() {
        var counts: [String: Int] = [:]
        for product in products {
            let names = Set([product.displayName, product.referenceName].map { Slug.make($0 ?? "") }.filter(Slug.isUsable))
            for name in names { counts[name, default: 0] += 1 }
        }
        var names = UniqueNames()
        for product in products {
            slugs[product.productID] = names.claim(candidates(product, counts: counts))
        }
    }

    private mutating func makeGroups() {
        var nameCounts: [String: Int] = [:]
        for group in catalog.subscriptionGroups { nameCounts[group.name, default: 0] += 1 }
        for group in catalog.subscriptionGroups {
            let members = group.productIDs.compactMap { catalog.product($0) }
            var levels: [Int: [CatalogProduct]] = [:]
            for product in members { levels[product.groupNumber ?? 1, default: []].append(product) }
            let ordered = levels.keys.sorted().map { (number: $0, products: levels[$0] ?? []) }
            groups.append(Group(group: group, expectationName: nameCounts[group.name] == 1 ? group.name : nil, levels: ordered))
        }
    }

    /// One tier per non-consumable and per non-renewing subscription; per subscription group one tier, or one
    /// per level when the group has several levels, so that upgrades and downgrades change access.
    private mutating func makeTiers() {
        var names = UniqueNames()
        var groupTiers: [String: [(name: String, productIDs: [String])]] = [:]
        for survey in groups {
            let groupSlug = Slug.make(survey.group.name)
            let groupCandidates = Slug.isUsable(groupSlug) ? [groupSlug] : []
            var tiersOfGroup: [(name: String, productIDs: [String])] = []
            if survey.levels.count == 1, let only = survey.levels.first {
                // A group's one tier is named after the group, however many products share it.
                let name = names.claim(groupCandidates + [slug(only.products[0])])
                tiersOfGroup.append((name, only.products.map(\.productID)))
            } else {
                for level in survey.levels {
                    let name = level.products.count == 1
                        ? names.claim([slug(level.products[0])])
                        : names.claim(groupCandidates.map { "\($0)-level-\(level.number)" } + [slug(level.products[0])])
                    tiersOfGroup.append((name, level.products.map(\.productID)))
                }
            }
            groupTiers[survey.group.id] = tiersOfGroup
        }
        var emittedGroups = Set<String>()
        for product in products {
            switch product.type {
            case .consumable:
                continue
            case .nonConsumable, .nonRenewable:
                tiers.append((names.claim([slug(product)]), [product.productID]))
            case .autoRenewable:
                guard let groupID = product.subscriptionGroupID, emittedGroups.insert(groupID).inserted else { continue }
                tiers += groupTiers[groupID] ?? []
            }
        }
        // Non-renewing tiers after the subscription groups, as people list them.
        let nonRenewing = Set(products(of: .nonRenewable).map(\.productID))
        tiers = tiers.filter { !nonRenewing.contains($0.productIDs[0]) } + tiers.filter { nonRenewing.contains($0.productIDs[0]) }
        for tier in tiers {
            for productID in tier.productIDs { tierOf[productID] = tier.name }
        }
    }

    /// Consumables: `"100 Coins"` credits 100 to `coins`; other names credit 1 to a balance named after the
    /// product. Non-renewing durations: ``NonRenewingDuration``.
    private mutating func makeBalancesAndDurations() {
        for product in products(of: .consumable) {
            var balance: (String, Int)?
            for name in [product.displayName, product.referenceName].compactMap({ $0 }) {
                let words = name.split(separator: " ", maxSplits: 1)
                if words.count == 2, let amount = Int(words[0]), (1...1_000_000_000).contains(amount) {
                    let unit = Slug.make(String(words[1]))
                    if Slug.isUsable(unit) {
                        balance = (unit, amount)
                        break
                    }
                }
            }
            balances[product.productID] = balance ?? (slug(product), 1)
        }
        for product in products(of: .nonRenewable) {
            durations[product.productID] = NonRenewingDuration(names: [product.displayName, product.referenceName, product.productID])
        }
    }

    // MARK: Bundle ID

    /// A bundle ID guessed from the product IDs: the most common three-label prefix of IDs with four or more
    /// labels (`com.example.app.pro` → `com.example.app`), else of two labels, else `com.example.app`.
    var guessedBundleID: String {
        for labels in [3, 2] {
            var counts: [String: Int] = [:]
            var order: [String] = []
            for product in products {
                let parts = product.productID.split(separator: ".")
                guard parts.count > labels else { continue }
                let prefix = parts.prefix(labels).joined(separator: ".")
                if counts[prefix] == nil { order.append(prefix) }
                counts[prefix, default: 0] += 1
            }
            if let best = order.max(by: { counts[$0, default: 0] < counts[$1, default: 0] }) {
                return best
            }
        }
        return "com.example.app"
    }
}
