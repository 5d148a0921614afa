import MatrixModel

/// The example catalog of `matrices/Products.storekit`, built in code so that tests do not depend on the file.
public enum ExampleMatrix {
    public static let prefix = "com.example.storekitmatrix."
    public static let coins = prefix + "coins100"
    public static let pro = prefix + "pro"
    public static let monthly = prefix + "plus.monthly"
    public static let yearly = prefix + "premium.yearly"
    public static let season = prefix + "season"
    public static let weekPass = prefix + "weekpass"
    public static let groupID = "21400001"
    public static let groupName = "Membership"

    public static let catalog = StoreKitConfiguration(
        products: [
            CatalogProduct(productID: coins, type: .consumable, displayPrice: "0.99"),
            CatalogProduct(productID: pro, type: .nonConsumable, displayPrice: "9.99", familyShareable: true),
            CatalogProduct(productID: monthly, type: .autoRenewable, displayPrice: "4.99", familyShareable: true,
                           subscriptionGroupID: groupID, groupNumber: 2, recurringSubscriptionPeriod: ISO8601Duration("P1M"),
                           introductoryOffer: SubscriptionOffer(paymentMode: .freeTrial, subscriptionPeriod: ISO8601Duration(weeks: 1))),
            CatalogProduct(productID: yearly, type: .autoRenewable, displayPrice: "39.99", subscriptionGroupID: groupID,
                           groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration("P1Y")),
            CatalogProduct(productID: season, type: .nonRenewable, displayPrice: "19.99"),
            CatalogProduct(productID: weekPass, type: .nonRenewable, displayPrice: "2.99"),
        ],
        subscriptionGroups: [SubscriptionGroup(id: groupID, name: groupName, productIDs: [monthly, yearly])])

    /// The example catalog without Plus Monthly's introductory free week: every period of a new subscriber is a
    /// regular one (for tests about periods and clocks rather than offers).
    public static let catalogWithoutIntroductoryOffer: StoreKitConfiguration = {
        var plain = catalog
        for index in plain.products.indices { plain.products[index].introductoryOffer = nil }
        return plain
    }()

    /// A matrix over the example catalog with the given accounts and cases.
    public static func matrix(accounts: [Account] = [Account(alias: "a")], cases: [MatrixCase] = [], store: StoreSettings = .init()) -> Matrix {
        Matrix(name: "example", app: AppInfo(bundleId: "com.example.storekitmatrix"), catalog: catalog,
               tiers: [Tier(name: "pro", productIDs: [pro]), Tier(name: "plus", productIDs: [monthly]),
                       Tier(name: "premium", productIDs: [yearly]), Tier(name: "season", productIDs: [season]),
                       Tier(name: "week", productIDs: [weekPass])],
               consumables: [coins: ConsumableSpec(balance: "coins", amount: 100)],
               nonRenewing: [season: NonRenewingSpec(duration: ISO8601Duration(years: 1)),
                             weekPass: NonRenewingSpec(duration: ISO8601Duration(weeks: 1))],
               accounts: accounts, store: store, cases: cases)
    }
}
