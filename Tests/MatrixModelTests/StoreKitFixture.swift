import Testing

/// What each real `.storekit` fixture holds, written out by hand from the files (not computed by the reader).
///
/// Counts are per product type over `products`, `nonRenewingSubscriptions` and every group's
/// `subscriptions`; groups and subscriptions are in file order.
struct StoreKitFixture: Sendable, CustomTestStringConvertible {
    struct Counts: Sendable, Equatable {
        var consumable: Int
        var nonConsumable: Int
        var nonRenewable: Int
        var autoRenewable: Int
    }

    struct Settings: Sendable, Equatable {
        var timeRate: Int?
        var storefront: String?
        var askToBuyEnabled: Bool?
        var billingGracePeriodEnabled: Bool?
    }

    struct Subscription: Sendable, Equatable {
        var productID: String
        var level: Int
        var period: String

        init(_ productID: String, level: Int, period: String) {
            self.productID = productID
            self.level = level
            self.period = period
        }
    }

    struct Group: Sendable, Equatable {
        var id: String
        var name: String
        var subscriptions: [Subscription]
    }

    var file: String
    var version: String
    var counts: Counts
    var settings: Settings
    var groups: [Group]

    init(_ file: String, version: String, counts: Counts, settings: Settings, groups: [Group]) {
        self.file = file
        self.version = version
        self.counts = counts
        self.settings = settings
        self.groups = groups
    }

    var testDescription: String { file }

    static let all: [StoreKitFixture] = [
        StoreKitFixture(
            "AfrazCodes__Adapty-Demo__Configuration.storekit",
            version: "1.2",
            counts: .init(consumable: 0, nonConsumable: 0, nonRenewable: 0, autoRenewable: 2),
            settings: .init(timeRate: nil, storefront: nil, askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "95D90CAF", name: "VIP", subscriptions: [
                    .init("io.iosacademy.sports.monthly", level: 1, period: "P1M"),
                    .init("io.iosacademy.sports.yearly", level: 1, period: "P1Y"),
                ]),
            ]
        ),
        StoreKitFixture(
            "CofficLab__Cisum_SwiftUI__Products.storekit",
            version: "4.0",
            counts: .init(consumable: 3, nonConsumable: 3, nonRenewable: 3, autoRenewable: 4),
            settings: .init(timeRate: 15, storefront: "CHN", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: [
                .init(id: "3F19ED53", name: "Software Services Pro", subscriptions: [
                    .init("com.coffic.netto.monthly", level: 1, period: "P1M"),
                    .init("com.coffic.netto.annual", level: 2, period: "P1Y"),
                ]),
                .init(id: "0DA02846", name: "Software Services Ultimate", subscriptions: [
                    .init("com.yueyi.netto.ultimate.monthly", level: 1, period: "P1M"),
                    .init("com.yueyi.netto.ultimate.annual", level: 2, period: "P1Y"),
                ]),
            ]
        ),
        StoreKitFixture(
            "Kanunnikoff__Kamyal-iOS__Store.storekit",
            version: "5.0",
            counts: .init(consumable: 1, nonConsumable: 0, nonRenewable: 0, autoRenewable: 0),
            settings: .init(timeRate: 0, storefront: "RUS", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: []
        ),
        StoreKitFixture(
            "RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit",
            version: "3.0",
            counts: .init(consumable: 1, nonConsumable: 1, nonRenewable: 1, autoRenewable: 13),
            settings: .init(timeRate: nil, storefront: "USA", askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "21331777", name: "greenie_testing", subscriptions: [
                    .init("greenie_annual", level: 1, period: "P1Y"),
                    .init("greenie_monthly", level: 2, period: "P1M"),
                ]),
                .init(id: "21378123", name: "michail_test_offers", subscriptions: [
                    .init("test_product1", level: 1, period: "P1W"),
                    .init("test_refname2", level: 2, period: "P2M"),
                ]),
                .init(id: "21340048", name: "michail_testing", subscriptions: [
                    .init("P2", level: 2, period: "P1M"),
                    .init("P1", level: 1, period: "P1W"),
                ]),
                .init(id: "21076983", name: "Raquel RC Training Subscription Group", subscriptions: [
                    .init("purchasetester_699_1m", level: 2, period: "P1M"),
                    .init("purchasetester_199_1w", level: 1, period: "P1W"),
                    .init("purchasetester_7999_1y", level: 3, period: "P1Y"),
                ]),
                .init(id: "21424114", name: "RevenueCat subscriptions", subscriptions: [
                    .init("demo2023_mv", level: 1, period: "P1M"),
                ]),
                .init(id: "20736437", name: "subscription group", subscriptions: [
                    .init("com.revenuecat.purchaseTester.annual_39.99.2_week_intro", level: 1, period: "P1Y"),
                    .init("com.revenuecat.purchaseTester.annual_plus_annual_free", level: 3, period: "P1Y"),
                    .init("com.revenuecat.purchaseTester.monthly_4.99.1_week_intro", level: 2, period: "P1M"),
                ]),
            ]
        ),
        StoreKitFixture(
            "TheRacingLine__theracingline-ios__Configuration.storekit",
            version: "1.0",
            counts: .init(consumable: 1, nonConsumable: 0, nonRenewable: 0, autoRenewable: 2),
            settings: .init(timeRate: nil, storefront: nil, askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "6D796E4E", name: "SubscriptionLevels", subscriptions: [
                    .init("dev.daveellis.theracingline.gold", level: 1, period: "P1M"),
                    .init("dev.daveellis.theracingline.annual", level: 1, period: "P1W"),
                ]),
            ]
        ),
        StoreKitFixture(
            "Yuhara327__CalorieBalance__Subscriptions.storekit",
            version: "5.0",
            counts: .init(consumable: 0, nonConsumable: 0, nonRenewable: 0, autoRenewable: 2),
            settings: .init(timeRate: 0, storefront: "JPN", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: [
                .init(id: "F7E14CB3", name: "ProPlan", subscriptions: [
                    .init("com.yuhara.CalorieBalance.monthly", level: 1, period: "P1M"),
                    .init("com.yuhara.CalorieBalance.yearly", level: 1, period: "P1Y"),
                ]),
            ]
        ),
        StoreKitFixture(
            "chemsims__chemistry__ColombiaConfig.storekit",
            version: "1.1",
            counts: .init(consumable: 4, nonConsumable: 4, nonRenewable: 0, autoRenewable: 0),
            settings: .init(timeRate: 6, storefront: "COL", askToBuyEnabled: false, billingGracePeriodEnabled: nil),
            groups: []
        ),
        StoreKitFixture(
            "circles-project__circles-ios__Products.storekit",
            version: "3.0",
            counts: .init(consumable: 0, nonConsumable: 2, nonRenewable: 1, autoRenewable: 4),
            settings: .init(timeRate: 13, storefront: "USA", askToBuyEnabled: false, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "9168B5F2", name: "Online Accounts", subscriptions: [
                    .init("org.futo.circles.individual_monthly", level: 1, period: "P1M"),
                    .init("org.futo.circles.family_monthly", level: 1, period: "P1M"),
                    .init("org.futo.circles.individual_yearly", level: 1, period: "P1Y"),
                    .init("org.futo.circles.family_yearly", level: 1, period: "P1Y"),
                ]),
            ]
        ),
        StoreKitFixture(
            "comexbackkid__LeftPocket__StoreKitConfiguration.storekit",
            version: "4.0",
            counts: .init(consumable: 0, nonConsumable: 1, nonRenewable: 0, autoRenewable: 8),
            settings: .init(timeRate: nil, storefront: "USA", askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "21629539", name: "Left Pocket Pro", subscriptions: [
                    .init("lp_4999_1y", level: 4, period: "P1Y"),
                    .init("lp_7999_1y", level: 1, period: "P1Y"),
                    .init("lp_699_1m", level: 5, period: "P1M"),
                    .init("lp_999_1m", level: 2, period: "P1M"),
                    .init("lp_299_1w", level: 3, period: "P1W"),
                ]),
                .init(id: "21425788", name: "Premium", subscriptions: [
                    .init("lp_2999_1y", level: 1, period: "P1Y"),
                    .init("lc_399_1m", level: 2, period: "P1M"),
                    .init("lp_099_1w", level: 3, period: "P1W"),
                ]),
            ]
        ),
        StoreKitFixture(
            "denniscmcom__simoleon__Configuration.storekit",
            version: "1.1",
            counts: .init(consumable: 0, nonConsumable: 0, nonRenewable: 0, autoRenewable: 1),
            settings: .init(timeRate: 4, storefront: nil, askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "22DC70A2", name: "Simoleon Subscription", subscriptions: [
                    .init("simoleon_all_monthly", level: 1, period: "P1M"),
                ]),
            ]
        ),
        StoreKitFixture(
            "russell-archer__SKHelper__SampleProducts.storekit",
            version: "4.0",
            counts: .init(consumable: 0, nonConsumable: 2, nonRenewable: 0, autoRenewable: 2),
            settings: .init(timeRate: 1001, storefront: "USA", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: [
                .init(id: "198AC052", name: "vip", subscriptions: [
                    .init("com.rarcher.subscription.vip.silver", level: 2, period: "P1M"),
                    .init("com.rarcher.subscription.vip.gold", level: 1, period: "P1M"),
                ]),
            ]
        ),
        StoreKitFixture(
            "russell-archer__StoreHelper__SampleProducts.storekit",
            version: "2.0",
            counts: .init(consumable: 1, nonConsumable: 4, nonRenewable: 0, autoRenewable: 6),
            settings: .init(timeRate: 0, storefront: "USA", askToBuyEnabled: false, billingGracePeriodEnabled: nil),
            groups: [
                .init(id: "8126C4BB", name: "VIP", subscriptions: [
                    .init("com.rarcher.subscription.vip.gold", level: 1, period: "P1M"),
                    .init("com.rarcher.subscription.vip.silver", level: 2, period: "P1M"),
                    .init("com.rarcher.subscription.vip.bronze", level: 3, period: "P1M"),
                ]),
                .init(id: "1A156646", name: "Standard", subscriptions: [
                    .init("com.rarcher.green", level: 1, period: "P1M"),
                    .init("com.rarcher.amber", level: 2, period: "P1M"),
                    .init("com.rarcher.red", level: 3, period: "P1M"),
                ]),
            ]
        ),
        StoreKitFixture(
            "superuser404notfound__JellySeeTV__StoreKitConfig.storekit",
            version: "3.0",
            counts: .init(consumable: 3, nonConsumable: 1, nonRenewable: 0, autoRenewable: 0),
            settings: .init(timeRate: nil, storefront: nil, askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: []
        ),
        StoreKitFixture(
            "tikhop__Mercato__Mercato.storekit",
            version: "4.0",
            counts: .init(consumable: 4, nonConsumable: 3, nonRenewable: 2, autoRenewable: 10),
            settings: .init(timeRate: 0, storefront: "USA", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: [
                .init(id: "BASIC_GROUP", name: "Basic", subscriptions: [
                    .init("com.mercato.tests.subscription.weekly", level: 3, period: "P1W"),
                    .init("com.mercato.tests.subscription.monthly", level: 2, period: "P1M"),
                    .init("com.mercato.tests.subscription.annual", level: 1, period: "P1Y"),
                ]),
                .init(id: "TRIAL_GROUP", name: "Trial", subscriptions: [
                    .init("com.mercato.tests.subscription.weekly.trial", level: 3, period: "P1W"),
                    .init("com.mercato.tests.subscription.monthly.trial", level: 2, period: "P1M"),
                    .init("com.mercato.tests.subscription.annual.trial", level: 1, period: "P1Y"),
                ]),
                .init(id: "INTRO_GROUP", name: "Introductory", subscriptions: [
                    .init("com.mercato.tests.subscription.monthly.intro", level: 2, period: "P1M"),
                    .init("com.mercato.tests.subscription.annual.intro", level: 1, period: "P1Y"),
                ]),
                .init(id: "PREMIUM_GROUP", name: "Premium", subscriptions: [
                    .init("com.mercato.tests.subscription.premium.monthly", level: 2, period: "P1M"),
                    .init("com.mercato.tests.subscription.premium.annual", level: 1, period: "P1Y"),
                ]),
            ]
        ),
        StoreKitFixture(
            "tiktok__tiktok-business-ios-sdk__StoreKitConfig.storekit",
            version: "5.0",
            counts: .init(consumable: 1, nonConsumable: 1, nonRenewable: 1, autoRenewable: 1),
            settings: .init(timeRate: 0, storefront: "USA", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: [
                .init(id: "F3C29523", name: "ARSubscriptionPurchase", subscriptions: [
                    .init("com.tiktok.TikTokBusinessSDKTestApp.ARSubscriptionPurchaseOne", level: 1, period: "P1M"),
                ]),
            ]
        ),
        StoreKitFixture(
            "xmliszt__joodle__Store.storekit",
            version: "6.3",
            counts: .init(consumable: 0, nonConsumable: 2, nonRenewable: 0, autoRenewable: 2),
            settings: .init(timeRate: 0, storefront: "SGP", askToBuyEnabled: false, billingGracePeriodEnabled: false),
            groups: [
                .init(id: "21852566", name: "Joodle Pro", subscriptions: [
                    .init("dev.liyuxuan.joodle.pro.monthly", level: 2, period: "P1M"),
                    .init("dev.liyuxuan.joodle.pro.yearly", level: 1, period: "P1Y"),
                ]),
            ]
        ),
        StoreKitFixture(
            "yonaskolb__XcodeGen__Configuration.storekit",
            version: "1.0",
            counts: .init(consumable: 1, nonConsumable: 0, nonRenewable: 0, autoRenewable: 0),
            settings: .init(timeRate: nil, storefront: nil, askToBuyEnabled: nil, billingGracePeriodEnabled: nil),
            groups: []
        ),
    ]
}
