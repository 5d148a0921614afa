import Testing
import MatrixJSON
import MatrixModel
import TestSupport

/// Reads a fixture from `Tests/MatrixModelTests/Fixtures/storekit`, requiring that it reads without errors.
private func readFixture(_ name: String) throws -> (StoreKitConfiguration, [Diagnostic]) {
    let bytes = try Fixtures.bytes("storekit/" + name)
    let (configuration, diagnostics) = StoreKitConfigurationReader.read(bytes, file: name)
    return (try #require(configuration, "\(name): \(diagnostics.map(\.rendered))"), diagnostics)
}

private func read(_ source: MarkedSource) -> (StoreKitConfiguration?, [Diagnostic]) {
    StoreKitConfigurationReader.read(source.bytes, file: "Products.storekit")
}

@Suite("StoreKit configuration reader")
struct StoreKitConfigurationReaderTests {
    // MARK: Real files

    @Test("every fixture file has an expectation")
    func fixturesCovered() throws {
        #expect(try Fixtures.storeKitFileNames() == StoreKitFixture.all.map(\.file))
        #expect(StoreKitFixture.all.count == 17)
    }

    @Test("real files read with their format version, product counts, groups, levels and periods",
          arguments: StoreKitFixture.all)
    func realFile(_ fixture: StoreKitFixture) throws {
        let (configuration, diagnostics) = try readFixture(fixture.file)
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.rendered))")
        #expect(configuration.formatVersion.description == fixture.version)

        let counts = StoreKitFixture.Counts(
            consumable: configuration.products.count { $0.type == .consumable },
            nonConsumable: configuration.products.count { $0.type == .nonConsumable },
            nonRenewable: configuration.products.count { $0.type == .nonRenewable },
            autoRenewable: configuration.products.count { $0.type == .autoRenewable })
        #expect(counts == fixture.counts)

        let groups = configuration.subscriptionGroups.map { group in
            StoreKitFixture.Group(id: group.id, name: group.name, subscriptions: group.productIDs.map { productID in
                let product = configuration.product(productID)
                return StoreKitFixture.Subscription(productID, level: product?.groupNumber ?? -1,
                                                    period: product?.recurringSubscriptionPeriod?.description ?? "none")
            })
        }
        #expect(groups == fixture.groups)
        for group in configuration.subscriptionGroups {
            for productID in group.productIDs {
                #expect(configuration.product(productID)?.subscriptionGroupID == group.id)
            }
        }

        let settings = StoreKitFixture.Settings(
            timeRate: configuration.settings.timeRate, storefront: configuration.settings.storefront,
            askToBuyEnabled: configuration.settings.askToBuyEnabled,
            billingGracePeriodEnabled: configuration.settings.billingGracePeriodEnabled)
        #expect(settings == fixture.settings)
    }

    @Test("products outside groups have no group, level or period")
    func productsOutsideGroups() throws {
        let (configuration, _) = try readFixture("tikhop__Mercato__Mercato.storekit")
        let removeAds = try #require(configuration.product("com.mercato.tests.nonconsumable.removeads"))
        #expect(removeAds.type == .nonConsumable)
        #expect(removeAds.familyShareable)
        #expect(removeAds.subscriptionGroupID == nil)
        #expect(removeAds.groupNumber == nil)
        #expect(removeAds.recurringSubscriptionPeriod == nil)
        #expect(removeAds.displayName == "Remove Ads")
        #expect(removeAds.referenceName == "Remove Ads")
        #expect(configuration.product("com.mercato.tests.nonrenewing.year")?.type == .nonRenewable)
        #expect(configuration.identifier == "C900C5D8")
    }

    @Test("display names prefer en_US, then the first non-empty localization")
    func displayNames() throws {
        let (jelly, _) = try readFixture("superuser404notfound__JellySeeTV__StoreKitConfig.storekit")
        #expect(jelly.product("de.superuser404.JellySeeTV.tip.beer")?.displayName == "Beer Tip")
        let (joodle, _) = try readFixture("xmliszt__joodle__Store.storekit")
        #expect(joodle.product("dev.liyuxuan.joodle.pro.lifetime")?.displayName == "Joodle Pro Lifetime")  // en_US is fifth
        let (kamyal, _) = try readFixture("Kanunnikoff__Kamyal-iOS__Store.storekit")
        #expect(kamyal.product("software.kanunnikoff.Kamyal.Products.Tip")?.displayName == "Чаевые")  // only ru
        let (chemistry, _) = try readFixture("chemsims__chemistry__ColombiaConfig.storekit")
        #expect(chemistry.product("tip_1")?.displayName == nil)
        #expect(chemistry.product("tip_1")?.referenceName == nil)
    }

    @Test("names are read without the spaces around them; a name of spaces is no name")
    func trimmedNames() throws {
        let text = #"""
            {"version": {"major": 4, "minor": 0}, "products": [
              {"productID": "a", "type": "NonConsumable", "referenceName": " Pro  ", "localizations": [{"locale": "en_US", "displayName": "Pro Unlock \n"}]},
              {"productID": "b", "type": "NonConsumable", "referenceName": "   ", "localizations": [{"locale": "en_US", "displayName": "  "}, {"locale": "fr_FR", "displayName": "Déblocage"}]}],
             "subscriptionGroups": [{"id": "1", "name": "Premium ", "subscriptions": [{"productID": "c", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M"}]}]}
            """#
        let (configuration, diagnostics) = StoreKitConfigurationReader.read(Array(text.utf8), file: "t.storekit")
        let catalog = try #require(configuration, "\(diagnostics.map(\.rendered))")
        #expect(catalog.product("a")?.displayName == "Pro Unlock" && catalog.product("a")?.referenceName == "Pro")
        #expect(catalog.product("b")?.displayName == "Déblocage" && catalog.product("b")?.referenceName == nil)
        #expect(catalog.subscriptionGroups.first?.name == "Premium")
    }

    @Test("other settings are read where present")
    func otherSettings() throws {
        let (coffic, _) = try readFixture("CofficLab__Cisum_SwiftUI__Products.storekit")
        #expect(coffic.settings.locale == "zh_Hans")
        #expect(coffic.settings.renewalBillingIssuesEnabled == false)
        #expect(coffic.settings.failTransactionsEnabled == false)
        let (xcodegen, _) = try readFixture("yonaskolb__XcodeGen__Configuration.storekit")
        #expect(xcodegen.settings == StoreKitConfiguration.Settings())
        #expect(xcodegen.identifier == nil)
    }

    // MARK: Offers

    struct IntroductoryOffer: Sendable, CustomTestStringConvertible {
        var file: String
        var productID: String
        /// `paymentMode subscriptionPeriod ×numberOfPeriods price`, or `none`.
        var offer: String
        var testDescription: String { "\(file.prefix(while: { $0 != "_" })) \(productID)" }
    }

    @Test("introductory offers: v1–3 introductoryOffer object or null, v4+ introductoryOffers array", arguments: [
        IntroductoryOffer(file: "AfrazCodes__Adapty-Demo__Configuration.storekit", productID: "io.iosacademy.sports.monthly", offer: "none"),
        IntroductoryOffer(file: "russell-archer__StoreHelper__SampleProducts.storekit", productID: "com.rarcher.subscription.vip.gold",
                          offer: "payAsYouGo P1M ×3 1.99"),
        IntroductoryOffer(file: "russell-archer__StoreHelper__SampleProducts.storekit", productID: "com.rarcher.subscription.vip.silver",
                          offer: "none"),
        IntroductoryOffer(file: "RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit", productID: "P2",
                          offer: "payUpFront P2M ×1 2.99"),
        IntroductoryOffer(file: "RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit",
                          productID: "com.revenuecat.purchaseTester.annual_39.99.2_week_intro", offer: "free P2W ×1 free"),
        IntroductoryOffer(file: "circles-project__circles-ios__Products.storekit", productID: "org.futo.circles.individual_monthly",
                          offer: "free P3M ×1 free"),
        // A free trial keeps the price Xcode showed before the mode changed; it is still free.
        IntroductoryOffer(file: "circles-project__circles-ios__Products.storekit", productID: "org.futo.circles.family_monthly",
                          offer: "free P3M ×1 free"),
        IntroductoryOffer(file: "CofficLab__Cisum_SwiftUI__Products.storekit", productID: "com.coffic.netto.annual", offer: "free P3M ×1 free"),
        IntroductoryOffer(file: "russell-archer__SKHelper__SampleProducts.storekit", productID: "com.rarcher.subscription.vip.gold",
                          offer: "free P3D ×1 free"),
        IntroductoryOffer(file: "tikhop__Mercato__Mercato.storekit", productID: "com.mercato.tests.subscription.monthly.intro",
                          offer: "payAsYouGo P1M ×3 0.99"),
        IntroductoryOffer(file: "tikhop__Mercato__Mercato.storekit", productID: "com.mercato.tests.subscription.weekly", offer: "none"),
        IntroductoryOffer(file: "Yuhara327__CalorieBalance__Subscriptions.storekit", productID: "com.yuhara.CalorieBalance.monthly",
                          offer: "none"),
        IntroductoryOffer(file: "tiktok__tiktok-business-ios-sdk__StoreKitConfig.storekit",
                          productID: "com.tiktok.TikTokBusinessSDKTestApp.ARSubscriptionPurchaseOne", offer: "payUpFront P3M ×1 0.99"),
        IntroductoryOffer(file: "xmliszt__joodle__Store.storekit", productID: "dev.liyuxuan.joodle.pro.yearly", offer: "none"),
    ])
    func introductoryOffer(_ example: IntroductoryOffer) throws {
        let (configuration, _) = try readFixture(example.file)
        let product = try #require(configuration.product(example.productID))
        #expect(product.introductoryOffer.map(describe) ?? "none" == example.offer)
    }

    @Test("an introductoryOffers array is read when there is no introductoryOffer object")
    func introductoryOffersArray() throws {
        let source = MarkedSource("""
            {"version": {"major": 4, "minor": 0}, "products": [], "subscriptionGroups": [{"id": "G", "name": "Plus", "subscriptions": [
              {"productID": "plus.monthly", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M", "groupNumber": 2,
               "displayPrice": "2.99", "subscriptionGroupID": "G",
               "introductoryOffers": [{"paymentMode": "payUpFront", "subscriptionPeriod": "P6M", "displayPrice": "4.99"}]}
            ]}]}
            """)
        let (configuration, diagnostics) = read(source)
        #expect(diagnostics.isEmpty)
        let product = try #require(configuration?.product("plus.monthly"))
        #expect(product.introductoryOffer.map(describe) == "payUpFront P6M ×1 4.99")
        #expect(product.introductoryOffer?.totalDuration.description == "P6M")
        #expect(product.groupNumber == 2)
        #expect(product.priceMilliunits == 2990)
    }

    @Test("promotional offers (adHocOffers) keep their offerIDs in file order", arguments: [
        ("RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit", "P1",
         ["Deema_promo_offer_identifier_3", "deema_promo_offer_identifier", "deema_promo2_offer_id"]),
        ("RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit", "test_product1", ["test"]),
        ("RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit", "greenie_annual", []),
        ("russell-archer__StoreHelper__SampleProducts.storekit", "com.rarcher.subscription.vip.gold", ["vip.gold.xmassale", "vip.gold.xmassale2"]),
        ("circles-project__circles-ios__Products.storekit", "org.futo.circles.individual_monthly", ["XYZ"]),
        ("tiktok__tiktok-business-ios-sdk__StoreKitConfig.storekit", "com.tiktok.TikTokBusinessSDKTestApp.ARSubscriptionPurchaseOne",
         ["test_ycq_promotional"]),
    ])
    func promotionalOffers(file: String, productID: String, offerIDs: [String]) throws {
        let (configuration, _) = try readFixture(file)
        let product = try #require(configuration.product(productID))
        #expect(product.promotionalOffers.map(\.offerID) == offerIDs)
    }

    @Test("promotional, code and win-back offers keep mode, period, count and price")
    func offerDetails() throws {
        let (revenueCat, _) = try readFixture("RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit")
        let p1 = try #require(revenueCat.product("P1"))
        #expect(p1.promotionalOffers.map(describe) == ["free P3M ×1 free", "free P1W ×1 free", "payAsYouGo P1W ×3 0.99"])
        #expect(p1.codeOffers.map(describe) == ["free P2W ×1 free", "free P1M ×1 free", "payAsYouGo P1W ×5 0.99"])
        #expect(p1.codeOffers.map(\.offerID) == [nil, nil, nil])

        let (storeHelper, _) = try readFixture("russell-archer__StoreHelper__SampleProducts.storekit")
        let gold = try #require(storeHelper.product("com.rarcher.subscription.vip.gold"))
        #expect(gold.promotionalOffers.map(describe) == ["payUpFront P3M ×1 0.99", "payUpFront P1Y ×1 10"])
        #expect(gold.promotionalOffers.map(\.totalDuration.description) == ["P3M", "P1Y"])
        #expect(gold.introductoryOffer?.totalDuration.description == "P3M")  // 3 × P1M, pay as you go

        let (leftPocket, _) = try readFixture("comexbackkid__LeftPocket__StoreKitConfiguration.storekit")
        let monthly = try #require(leftPocket.product("lp_699_1m"))
        #expect(monthly.winBackOffers.map(\.offerID) == ["winbackoffer_399_1m"])
        #expect(monthly.winBackOffers.map(describe) == ["payAsYouGo P1M ×12 3.99"])
        #expect(monthly.codeOffers.count == 2)

        let (joodle, _) = try readFixture("xmliszt__joodle__Store.storekit")
        #expect(joodle.product("dev.liyuxuan.joodle.pro.yearly")?.codeOffers.map(\.subscriptionPeriod.description) == ["P1M", "P1Y", "P1Y"])
    }

    // MARK: Prices

    @Test("fixture prices convert to milliunits", arguments: [
        ("tikhop__Mercato__Mercato.storekit", "com.mercato.tests.consumable.coins.100", 990),
        ("tikhop__Mercato__Mercato.storekit", "com.mercato.tests.consumable.coins.500", 4990),
        ("xmliszt__joodle__Store.storekit", "dev.liyuxuan.joodle.pro.lifetime", 49980),
        ("RevenueCat__purchases-ios__PurchaseTesterStoreKitConfiguration.storekit", "com.revenuecat.purchaseTester.lifetime.199.99", 199_990),
        ("CofficLab__Cisum_SwiftUI__Products.storekit", "com.yueyi.kuaiyizhi.pro.year.1", 79000),
        ("chemsims__chemistry__ColombiaConfig.storekit", "tip_1", 4_900_000),
        ("Yuhara327__CalorieBalance__Subscriptions.storekit", "com.yuhara.CalorieBalance.yearly", 4_000_000),
        ("yonaskolb__XcodeGen__Configuration.storekit", "com.xcodegen.0", 0),
    ] as [(String, String, Int64)])
    func fixturePrices(file: String, productID: String, milliunits: Int64) throws {
        let (configuration, _) = try readFixture(file)
        #expect(configuration.product(productID)?.priceMilliunits == milliunits)
    }

    @Test("decimal prices convert to milliunits, rounding half up", arguments: [
        ("4.99", 4990), ("0.99", 990), ("49.98", 49980), ("0", 0), ("0.00", 0), ("10", 10_000), ("0.5", 500),
        ("199.99", 199_990), ("4.995", 4995), ("4.9995", 5000), ("0.0004", 0), ("0.0005", 1), ("4.99999", 5000),
        (" 4.99 ", 4990), ("4.99\n", 4990), ("4.", 4000), ("999999999.99", 999_999_999_990),
    ] as [(String, Int64)])
    func milliunits(text: String, milliunits: Int64) {
        #expect(CatalogProduct.milliunits(text) == milliunits)
    }

    @Test("text that is not a decimal price is 0 milliunits", arguments: [
        "", "abc", "$4.99", "4,99", "1,000.00", "-1", "-0.99", "+4.99", "4.-9", "4.+9", "4.9a", "4.99.1", "1e3", "4 .99",
        "1000000000", "٤.٩٩",
    ])
    func notAPrice(text: String) {
        #expect(CatalogProduct.milliunits(text) == 0)
    }

    @Test("a numeric displayPrice is accepted")
    func numericPrice() throws {
        let source = MarkedSource(#"{"version": {"major": 1}, "products": [{"productID": "a", "type": "Consumable", "displayPrice": 1.5}]}"#)
        let (configuration, diagnostics) = read(source)
        #expect(diagnostics.isEmpty)
        #expect(configuration?.product("a")?.displayPrice == "1.5")
        #expect(configuration?.product("a")?.priceMilliunits == 1500)
        #expect(configuration?.formatVersion.description == "1.0")
    }

    // MARK: Errors

    struct CatalogError: Sendable, CustomTestStringConvertible {
        var name: String
        var source: String
        var code: DiagnosticCode
        var pointer: String
        var message: String
        var testDescription: String { name }
    }

    static let catalogErrors: [CatalogError] = [
        CatalogError(name: "not JSON", source: """
            {
              "version": ⟨e⟩version
            }
            """, code: .invalidJSON, pointer: "/version", message: "unexpected character 'v', expected a value"),
        CatalogError(name: "an empty object", source: "⟨e⟩{}", code: .notStoreKitConfiguration, pointer: "",
                     message: #"not a StoreKit configuration: expected "version" and "products" or "subscriptionGroups""#),
        CatalogError(name: "an array", source: "  ⟨e⟩[]", code: .notStoreKitConfiguration, pointer: "",
                     message: "not a StoreKit configuration: expected a JSON object, found an array"),
        CatalogError(name: "a matrix file", source: """
            ⟨e⟩{"schemaVersion": 1, "app": {"bundleId": "com.example"}, "catalog": "Products.storekit", "tiers": {}, "accounts": {}, "cases": []}
            """, code: .notStoreKitConfiguration, pointer: "",
                     message: #"not a StoreKit configuration: expected "version" and "products" or "subscriptionGroups""#),
        CatalogError(name: "products without a version", source: #"⟨e⟩{"products": []}"#, code: .notStoreKitConfiguration, pointer: "",
                     message: #"not a StoreKit configuration: expected "version" and "products" or "subscriptionGroups""#),
        CatalogError(name: "a product without productID", source: """
            {"version": {"major": 3, "minor": 0}, "products": [
              {"productID": "ok", "type": "Consumable"},
              ⟨e⟩{"type": "Consumable", "displayPrice": "0.99"}
            ]}
            """, code: .invalidCatalogEntry, pointer: "/products/1", message: #"missing required field "productID""#),
        CatalogError(name: "an empty productID", source: """
            {"version": {"major": 3, "minor": 0}, "products": [{"productID": ⟨e⟩"", "type": "Consumable"}]}
            """, code: .invalidCatalogEntry, pointer: "/products/0/productID", message: "empty product ID"),
        CatalogError(name: "a product without type", source: """
            {"version": {"major": 3, "minor": 0}, "products": [⟨e⟩{"productID": "a"}]}
            """, code: .invalidCatalogEntry, pointer: "/products/0", message: #"missing required field "type""#),
        CatalogError(name: "an unknown type", source: """
            {"version": {"major": 3, "minor": 0}, "products": [{"productID": "a", "type": ⟨e⟩"Subscription"}]}
            """, code: .invalidCatalogEntry, pointer: "/products/0/type", message: #"unknown product type "Subscription""#),
        CatalogError(name: "a subscription without recurringSubscriptionPeriod", source: """
            {"version": {"major": 2, "minor": 0}, "products": [], "subscriptionGroups": [
              {"id": "G1", "name": "Pro", "subscriptions": [
                ⟨e⟩{"productID": "pro.monthly", "type": "RecurringSubscription", "groupNumber": 1}
              ]}
            ]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0",
                     message: #"missing required field "recurringSubscriptionPeriod" (an ISO 8601 duration such as P1M)"#),
        CatalogError(name: "a bad recurringSubscriptionPeriod", source: """
            {"version": {"major": 2, "minor": 0}, "products": [], "subscriptionGroups": [
              {"id": "G1", "name": "Pro", "subscriptions": [
                {"productID": "pro.monthly", "type": "RecurringSubscription", "recurringSubscriptionPeriod": ⟨e⟩"P1X"}
              ]}
            ]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/recurringSubscriptionPeriod",
                     message: #""P1X" is not an ISO 8601 duration"#),
        CatalogError(name: "a zero recurringSubscriptionPeriod", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": "RecurringSubscription", "recurringSubscriptionPeriod": ⟨e⟩"P0M"}]}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/recurringSubscriptionPeriod",
                     message: #""P0M" is not an ISO 8601 duration"#),
        // App Store Connect Help, "Offer auto-renewable subscriptions": durations from one week to one year.
        CatalogError(name: "a recurringSubscriptionPeriod longer than a year", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": "RecurringSubscription", "recurringSubscriptionPeriod": ⟨e⟩"P1000000Y"}]}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/recurringSubscriptionPeriod",
                     message: "period P1000000Y is longer than a year; App Store Connect offers P1W, P1M, P2M, P3M, P6M, P1Y"),
        CatalogError(name: "an offer period longer than a year", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M",
               "introductoryOffer": {"paymentMode": "free", "subscriptionPeriod": ⟨e⟩"P400D"}}]}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/introductoryOffer/subscriptionPeriod",
                     message: "period P400D is longer than a year; App Store Connect offers P3D, P1W, P2W, P1M, P2M, P3M, P6M, P1Y"),
        CatalogError(name: "a bad offer period", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M",
               "introductoryOffer": {"paymentMode": "free", "subscriptionPeriod": ⟨e⟩"1 week"}}]}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/introductoryOffer/subscriptionPeriod",
                     message: #""1 week" is not an ISO 8601 duration"#),
        CatalogError(name: "an unknown offer payment mode", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M",
               "adHocOffers": [{"offerID": "o", "paymentMode": ⟨e⟩"trial", "subscriptionPeriod": "P1W"}]}]}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/adHocOffers/0/paymentMode",
                     message: #"unknown offer payment mode "trial""#),
        CatalogError(name: "a non-subscription in a subscription group", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": ⟨e⟩"NonConsumable"}]}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0/subscriptions/0/type",
                     message: #"a subscription group lists "p" of type "NonConsumable""#),
        CatalogError(name: "a group without id", source: """
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [⟨e⟩{"name": "Pro", "subscriptions": []}]}
            """, code: .invalidCatalogEntry, pointer: "/subscriptionGroups/0", message: #"missing required field "id""#),
        CatalogError(name: "a version that is not an object", source: """
            {"version": ⟨e⟩4, "products": []}
            """, code: .wrongType, pointer: "/version", message: "expected an object, found a number"),
        CatalogError(name: "a duplicate product ID", source: """
            {"version": {"major": 1, "minor": 0}, "products": [
              {"productID": "coins", "type": "Consumable"},
              ⟨e⟩{"productID": "coins", "type": "Consumable"}
            ]}
            """, code: .duplicateProductID, pointer: "/products/1", message: #"product ID "coins" is defined twice"#),
        CatalogError(name: "a product ID both in products and in a group", source: """
            {"version": {"major": 1, "minor": 0}, "products": [{"productID": "pro", "type": "NonConsumable"}],
             "subscriptionGroups": [{"id": "G", "subscriptions": [
               ⟨e⟩{"productID": "pro", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M"}]}]}
            """, code: .duplicateProductID, pointer: "/subscriptionGroups/0/subscriptions/0", message: #"product ID "pro" is defined twice"#),
        CatalogError(name: "products is not an array", source: """
            {"version": {"major": 1, "minor": 0}, "products": ⟨e⟩{}}
            """, code: .wrongType, pointer: "/products", message: "expected an array, found an object"),
        // An xcode clock would otherwise run at real time without a word.
        CatalogError(name: "a _timeRate that is no SKTestSession.TimeRate", source: """
            {"version": {"major": 2, "minor": 0}, "products": [], "settings": {"_timeRate": ⟨e⟩-1}}
            """, code: .invalidCatalogEntry, pointer: "/settings/_timeRate", message: "_timeRate -1 is not an SKTestSession.TimeRate raw value"),
        CatalogError(name: "a _timeRate that is not an integer", source: """
            {"version": {"major": 2, "minor": 0}, "products": [], "settings": {"_timeRate": ⟨e⟩"fast"}}
            """, code: .invalidCatalogEntry, pointer: "/settings/_timeRate", message: "_timeRate is not an integer"),
    ]

    @Test("catalog errors are located exactly, with their code and pointer, and yield no configuration", arguments: catalogErrors)
    func catalogError(_ example: CatalogError) throws {
        let source = MarkedSource(example.source)
        let (configuration, diagnostics) = read(source)
        #expect(configuration == nil)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.rendered))")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.code == example.code)
        #expect(diagnostic.location == source.location("e"))
        #expect(diagnostic.pointer == example.pointer)
        #expect(diagnostic.message == example.message)
        #expect(diagnostic.file == "Products.storekit")
    }

    @Test("every problem in a catalog is reported at once")
    func allProblemsAtOnce() {
        let source = MarkedSource("""
            {"version": {"major": 3, "minor": 0},
             "products": [
               ⟨1⟩{"type": "Consumable"},
               {"productID": "a", "type": ⟨2⟩"Thing"},
               {"productID": "b", "type": "NonConsumable"},
               ⟨3⟩{"productID": "b", "type": "NonConsumable"}
             ],
             "subscriptionGroups": [{"id": "G", "subscriptions": [
               {"productID": "s", "type": "RecurringSubscription", "recurringSubscriptionPeriod": ⟨4⟩"monthly", "groupNumber": ⟨5⟩0}
             ]}]}
            """)
        let (configuration, diagnostics) = read(source)
        #expect(configuration == nil)
        #expect(diagnostics.summaries == [
            "\(source.location("1").text) error MX102 /products/0",
            "\(source.location("2").text) error MX102 /products/1/type",
            "\(source.location("3").text) error MX103 /products/3",
            "\(source.location("5").text) error MX019 /subscriptionGroups/0/subscriptions/0/groupNumber",
            "\(source.location("4").text) error MX102 /subscriptionGroups/0/subscriptions/0/recurringSubscriptionPeriod",
        ])
    }

    @Test("an unknown format version is a warning and the file is still read")
    func unknownFormatVersion() throws {
        let source = MarkedSource(#"{"version": ⟨v⟩{"major": 7, "minor": 1}, "products": [{"productID": "a", "type": "Consumable"}]}"#)
        let (configuration, diagnostics) = read(source)
        #expect(configuration?.formatVersion.description == "7.1")
        #expect(configuration?.products.map(\.productID) == ["a"])
        #expect(diagnostics.summaries == ["\(source.location("v").text) warning MX102 /version"])
    }

    @Test("a period App Store Connect does not offer, but no longer than a year, is a warning and is simulated as written")
    func unofferedPeriodWarning() throws {
        let source = MarkedSource("""
            {"version": {"major": 2, "minor": 0}, "subscriptionGroups": [{"id": "G1", "subscriptions": [
              {"productID": "p", "type": "RecurringSubscription", "recurringSubscriptionPeriod": ⟨p⟩"P4M"}]}]}
            """)
        let (configuration, diagnostics) = read(source)
        #expect(configuration?.product("p")?.recurringSubscriptionPeriod == ISO8601Duration(months: 4))
        #expect(diagnostics.summaries == ["\(source.location("p").text) warning MX102 /subscriptionGroups/0/subscriptions/0/recurringSubscriptionPeriod"])
    }

    @Test("a duplicate key in a catalog is reported as a warning and the file is read")
    func duplicateKeyWarning() throws {
        let source = MarkedSource(#"{"version": {"major": 1}, "products": [{"productID": "a", "type": "Consumable", ⟨d⟩"type": "NonConsumable"}]}"#)
        let (configuration, diagnostics) = read(source)
        #expect(configuration?.product("a")?.type == .nonConsumable)
        #expect(diagnostics.summaries == ["\(source.location("d").text) warning MX004 /products/0/type"])
    }

    @Test("unknown keys are ignored silently; settings that are not an object are a warning")
    func lenientKeys() throws {
        let source = MarkedSource("""
            {"version": {"major": 6, "minor": 9}, "appPolicies": {"eula": ""}, "subscriptionSuiteGroups": [],
             "products": [{"productID": "a", "type": "NonConsumable", "internalID": "X", "futureKey": [1]}],
             "settings": ⟨s⟩"default"}
            """)
        let (configuration, diagnostics) = read(source)
        #expect(configuration?.product("a")?.type == .nonConsumable)
        #expect(configuration?.settings == StoreKitConfiguration.Settings())
        #expect(diagnostics.summaries == ["\(source.location("s").text) warning MX102 /settings"])
    }
}

/// An offer as `paymentMode subscriptionPeriod ×numberOfPeriods price` (`free` when it has no price).
private func describe(_ offer: SubscriptionOffer) -> String {
    "\(offer.paymentMode.rawValue) \(offer.subscriptionPeriod) ×\(offer.numberOfPeriods) \(offer.displayPrice ?? "free")"
}
