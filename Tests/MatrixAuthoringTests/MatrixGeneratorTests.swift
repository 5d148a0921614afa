import Foundation
import Testing
@testable import MatrixAuthoring
@testable import MatrixModel
@testable import TestSupport

/// `matrix init`'s generator on its own: names, tiers, durations, the cases each product type gets, and the
/// exact text it writes for the example catalog.
@Suite("Matrix generator")
struct MatrixGeneratorTests {
    static let options = MatrixGenerator.Options(catalogReference: "Products.storekit")

    /// The generated matrix parsed back as plain JSON, independently of the loader.
    func json(_ output: MatrixGenerator.Output) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.bytes)) as? [String: Any])
    }

    func caseIDs(_ object: [String: Any]) -> [String] {
        ((object["cases"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    @Test("the example catalog gives exactly the golden matrix, and generating twice gives the same bytes")
    func exampleCatalogGolden() throws {
        let catalog = try #require(StoreKitConfigurationReader.read(try Data(contentsOf: Fixtures.packageDirectory
            .appendingPathComponent("matrices/Products.storekit")), file: "Products.storekit").0)
        let first = try MatrixGenerator.generate(catalog, options: Self.options)
        let second = try MatrixGenerator.generate(catalog, options: Self.options)
        #expect(first.bytes == second.bytes)
        try GeneratedGolden.check(Data(first.bytes), named: "Products.release.json")
    }

    @Test("the text is pretty: $schema first, one step per line, two-space indentation, a final newline")
    func layout() throws {
        let output = try MatrixGenerator.generate(ExampleMatrix.catalog, options: Self.options)
        let text = String(decoding: output.bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "{")
        #expect(lines[1] == #"  "$schema": "../schema/matrix.schema.json","#)
        #expect(lines[2] == #"  "schemaVersion": 1,"#)
        #expect(text.hasSuffix("}\n"))
        let stepLines = lines.filter { $0.hasPrefix(#"        {"action": "#) }
        let object = try json(output)
        let stepCount = ((object["cases"] as? [[String: Any]]) ?? []).reduce(0) { $0 + (($1["steps"] as? [Any])?.count ?? 0) }
        #expect(stepLines.count == stepCount)
        #expect(stepLines.allSatisfy { $0.hasSuffix("}") || $0.hasSuffix("},") })
        #expect(lines.contains(#"      "store": {"askToBuy": true},"#))
    }

    @Test("tiers: one per non-consumable and non-renewing subscription, one per level of a group with several levels")
    func tiers() throws {
        let object = try json(try MatrixGenerator.generate(ExampleMatrix.catalog, options: Self.options))
        let tiers = try #require(object["tiers"] as? [String: [String]])
        // ExampleMatrix.catalog has no display names: names come from the product IDs.
        #expect(tiers == ["pro": [ExampleMatrix.pro], "yearly": [ExampleMatrix.yearly], "monthly": [ExampleMatrix.monthly],
                          "season": [ExampleMatrix.season], "weekpass": [ExampleMatrix.weekPass]])
    }

    @Test("a group with one level is one tier named after the group; its products share it")
    func singleLevelGroup() throws {
        let a = CatalogProduct(productID: "com.app.vip.monthly", type: .autoRenewable, displayName: "VIP Monthly", subscriptionGroupID: "G",
                               groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(months: 1))
        let b = CatalogProduct(productID: "com.app.vip.yearly", type: .autoRenewable, displayName: "VIP Yearly", subscriptionGroupID: "G",
                               groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(years: 1))
        let catalog = StoreKitConfiguration(products: [a, b], subscriptionGroups: [SubscriptionGroup(id: "G", name: "VIP", productIDs: [a.productID, b.productID])])
        let object = try json(try MatrixGenerator.generate(catalog, options: Self.options))
        #expect(object["tiers"] as? [String: [String]] == ["vip": [a.productID, b.productID]])
        let ids = caseIDs(object)
        #expect(ids.contains("crossgrade/vip-monthly-to-vip-yearly"))
        #expect(!ids.contains { $0.hasPrefix("upgrade/") || $0.hasPrefix("downgrade/") })
    }

    @Test("a group's one tier is named after the group even when it holds one product")
    func singleProductGroup() throws {
        let weekly = CatalogProduct(productID: "com.app.pro.weekly", type: .autoRenewable, displayName: "Weekly", subscriptionGroupID: "G",
                                    groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(weeks: 1))
        let catalog = StoreKitConfiguration(products: [weekly], subscriptionGroups: [SubscriptionGroup(id: "G", name: "Pro", productIDs: [weekly.productID])])
        #expect(try json(try MatrixGenerator.generate(catalog, options: Self.options))["tiers"] as? [String: [String]] == ["pro": [weekly.productID]])
    }

    @Test("the renewal-limit cases use the subscription with the shortest period, not the first")
    func shortestPeriodForLimits() throws {
        let yearly = CatalogProduct(productID: "com.app.pro.yearly", type: .autoRenewable, displayName: "Pro Yearly", subscriptionGroupID: "G",
                                    groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(years: 1))
        let monthly = CatalogProduct(productID: "com.app.pro.monthly", type: .autoRenewable, displayName: "Pro Monthly", subscriptionGroupID: "G",
                                     groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(months: 1))
        let catalog = StoreKitConfiguration(products: [yearly, monthly],
                                            subscriptionGroups: [SubscriptionGroup(id: "G", name: "Pro", productIDs: [yearly.productID, monthly.productID])])
        let cases = (try json(try MatrixGenerator.generate(catalog, options: Self.options))["cases"] as? [[String: Any]]) ?? []
        let limits = cases.filter { $0["kind"] as? String == "environment-limit" }
        #expect(limits.count == 2)
        for limit in limits {
            let products = Set(((limit["steps"] as? [[String: Any]]) ?? []).compactMap { $0["product"] as? String })
            #expect(products == [monthly.productID], "\(limit["id"] ?? "")")
        }
    }

    @Test("products of one plan at different levels keep a tier each, and a note says how to merge them")
    func samePlanNote() throws {
        let monthly = CatalogProduct(productID: "com.app.pro.monthly", type: .autoRenewable, displayName: "Pro Monthly ", subscriptionGroupID: "G",
                                     groupNumber: 2, recurringSubscriptionPeriod: ISO8601Duration(months: 1))
        let yearly = CatalogProduct(productID: "com.app.pro.yearly", type: .autoRenewable, displayName: "Pro – Yearly", subscriptionGroupID: "G",
                                    groupNumber: 1, recurringSubscriptionPeriod: ISO8601Duration(years: 1))
        let catalog = StoreKitConfiguration(products: [monthly, yearly],
                                            subscriptionGroups: [SubscriptionGroup(id: "G", name: "Pro", productIDs: [monthly.productID, yearly.productID])])
        let output = try MatrixGenerator.generate(catalog, options: Self.options)
        #expect((try json(output)["tiers"] as? [String: [String]])?.count == 2)
        let note = try #require(output.notes.first { $0.hasPrefix("group \"Pro\": ") })
        #expect(note.contains("level 2") && note.contains("level 1") && note.contains("merge the tiers"), "\(note)")
        #expect(note.contains(#""com.app.pro.yearly", "com.app.pro.monthly""#) && note.contains("Pro Monthly (level 2"), "\(note)")
        #expect(CatalogSurvey.planName("Pro Monthly ") == "pro" && CatalogSurvey.planName("Pro – Yearly") == "pro")
        #expect(CatalogSurvey.planName("Premium Annual") != CatalogSurvey.planName("Basic Annual"))
    }

    @Test("a guessed bundle id is marked as guessed; one given is not")
    func guessedBundleId() throws {
        let guessed = try json(try MatrixGenerator.generate(ExampleMatrix.catalog, options: Self.options))
        #expect((guessed["app"] as? [String: Any])?["bundleIdGuessed"] as? Bool == true)
        let given = try json(try MatrixGenerator.generate(ExampleMatrix.catalog, options: .init(catalogReference: "P.storekit", bundleId: "com.me.app")))
        #expect((given["app"] as? [String: Any])?["bundleIdGuessed"] == nil)
    }

    @Test("every product gets the cases its type needs; family, offer and level cases only where the catalog has them")
    func casesPerType() throws {
        let ids = caseIDs(try json(try MatrixGenerator.generate(ExampleMatrix.catalog, options: Self.options)))
        for expected in [
            "fresh-purchase/pro", "refund/pro", "family-sharing/pro",
            "fresh-purchase/monthly", "renewal/monthly", "renewal/monthly-while-closed", "cancellation/monthly", "grace-period/monthly",
            "billing-retry/monthly-recovered", "billing-retry/monthly-gives-up", "refund/monthly", "family-sharing/monthly",
            "offer/monthly-introductory", "upgrade/monthly-to-yearly", "downgrade/yearly-to-monthly",
            "consumable/coins100", "consumable/coins100-unfinished-replayed", "consumable/coins100-killed-before-delivery",
            "non-renewing/season", "non-renewing/weekpass", "cancel/purchase-sheet", "pending/ask-to-buy-approved",
            "pending/ask-to-buy-declined", "pending/approved-while-closed", "restore/after-reinstall", "restore/second-device",
            "restore/nothing-to-restore", "environment-limit/sandbox-12-renewals", "environment-limit/testflight-daily-renewals",
        ] {
            #expect(ids.contains(expected), "missing \(expected)")
        }
        // Premium Yearly is neither family-shareable nor offered with an introductory offer; one level has one product.
        #expect(!ids.contains("family-sharing/yearly") && !ids.contains("offer/yearly-introductory"))
        #expect(!ids.contains { $0.hasPrefix("crossgrade/") })
        #expect(Set(ids).count == ids.count)
    }

    @Test("a consumable-only catalog gets consumable, another storefront's price, cancel, Ask to Buy and nothing-to-restore cases, and no tiers")
    func consumablesOnly() throws {
        let tip = CatalogProduct(productID: "com.app.tip", type: .consumable, referenceName: "Tip", displayName: "Чаевые")
        let output = try MatrixGenerator.generate(StoreKitConfiguration(products: [tip]), options: Self.options)
        let object = try json(output)
        #expect((object["tiers"] as? [String: Any])?.isEmpty == true)
        #expect(object["consumables"] as? [String: [String: AnyHashable]] == ["com.app.tip": ["balance": "tip", "amount": 1]])
        // The purchase in another storefront checks that the price shown is the price charged.
        #expect(caseIDs(object) == ["fresh-purchase/tip-in-gbr", "cancel/purchase-sheet", "pending/ask-to-buy-approved",
                                    "pending/ask-to-buy-declined", "pending/approved-while-closed", "restore/nothing-to-restore",
                                    "consumable/tip", "consumable/tip-unfinished-replayed", "consumable/tip-killed-before-delivery"])
        #expect(output.accountCount == 9)
    }

    @Test("a catalog without products is refused with a sentence saying what to do")
    func emptyCatalog() {
        #expect(throws: MatrixGenerator.Problem.self) { try MatrixGenerator.generate(StoreKitConfiguration(), options: Self.options) }
    }

    @Test("the bundle ID is guessed from the most common product ID prefix unless given")
    func bundleID() throws {
        let guessed = try MatrixGenerator.generate(ExampleMatrix.catalog, options: Self.options)
        #expect(guessed.guessedBundleId == "com.example.storekitmatrix")
        var options = Self.options
        options.bundleId = "com.acme.app"
        let given = try MatrixGenerator.generate(ExampleMatrix.catalog, options: options)
        #expect(given.guessedBundleId == nil)
        #expect((try json(given)["app"] as? [String: String]) == ["bundleId": "com.acme.app"])
        let bare = StoreKitConfiguration(products: [CatalogProduct(productID: "tip_1", type: .consumable)])
        #expect(try MatrixGenerator.generate(bare, options: Self.options).guessedBundleId == "com.example.app")
    }
}

/// Names and durations `matrix init` reads from product names.
@Suite("Matrix generator: names")
struct GeneratorNameTests {
    @Test("slugs are lowercase ASCII words joined by hyphens", arguments: [
        ("Plus Monthly", "plus-monthly"), ("MonthlyPlan", "monthly-plan"), ("Joodle Pro à vie", "joodle-pro-a-vie"),
        ("Annual $29.99 - Last Chance Offer", "annual-29-99-last-chance-offer"), ("专业版1年", "1"), ("Чаевые", ""),
        ("ConsumablePurchaseOne", "consumable-purchase-one"),
    ])
    func slugs(_ input: String, _ expected: String) {
        #expect(Slug.make(input) == expected)
    }

    @Test("a product ID gives the fewest last parts that make a usable slug")
    func productIDSlugs() {
        #expect(Slug.fromProductID("com.example.app.pro") == "pro")
        #expect(Slug.fromProductID("com.yueyi.kuaiyizhi.pro.year.1") == "year-1")
        #expect(Slug.fromProductID("com.xcodegen.0") == "xcodegen-0")
    }

    @Test("display names several products share name none of them; collisions get a number")
    func sharedDisplayNames() {
        func pro(_ id: String, _ reference: String) -> CatalogProduct {
            CatalogProduct(productID: id, type: .nonConsumable, referenceName: reference, displayName: "Left Pocket Pro")
        }
        let survey = CatalogSurvey(StoreKitConfiguration(products: [pro("lp_1", "Annual"), pro("lp_2", "Monthly"), pro("lp_3", "Annual")]))
        #expect(survey.products.map { survey.slug($0) } == ["lp-1", "monthly", "lp-3"])
        var names = UniqueNames()
        #expect([names.claim(["a"]), names.claim(["a"]), names.claim(["a", "b"]), names.claim(["a"])] == ["a", "a-2", "b", "a-3"])
    }

    @Test("non-renewing durations come from the names, else one year", arguments: [
        (["1 year access"], "P1Y"), (["Week Pass"], "P1W"), (["com.yueyi.kuaiyizhi.pro.day.7"], "P7D"), (["Monthly Pass"], "P1M"),
        (["com.mercato.tests.nonrenewing.month"], "P1M"), (["Season Pass", "com.app.season"], "P1Y"), (["Lifetime Account"], "P1Y"),
        (["3 months of Pro"], "P3M"), (["7days"], "P7D"),
    ])
    func durations(_ names: [String], _ expected: String) {
        #expect(NonRenewingDuration(names: names).duration.description == expected)
    }

    @Test("a name that names no period is marked as assumed")
    func assumedDuration() {
        #expect(NonRenewingDuration(names: ["Season Pass"]).source == nil)
        #expect(NonRenewingDuration(names: [nil, "Week Pass"]).source == "Week Pass")
    }

    @Test("expiry checkpoints fall before the shortest and after the longest calendar length", arguments: [
        ("P1Y", "P364D", "P3D"), ("P1M", "P27D", "P5D"), ("P1W", "P6D", "P2D"), ("P7D", "P6D", "P2D"), ("P1D", "PT43200S", "PT86400S"),
    ])
    func checkpoints(_ duration: String, _ before: String, _ after: String) throws {
        let guess = NonRenewingDuration(names: [])
        var copy = guess
        copy.duration = try #require(ISO8601Duration(duration))
        #expect(copy.checkpoints.before.description == before)
        #expect(copy.checkpoints.after.description == after)
    }
}

/// Golden outputs of the generator in `Tests/MatrixModelTests/Fixtures/init/`; `MATRIX_RECORD_GOLDEN=1` records them.
enum GeneratedGolden {
    static let directory = Fixtures.directory.appendingPathComponent("init", isDirectory: true)

    static func check(_ actual: Data, named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["MATRIX_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.write(to: url)
            return
        }
        let expected = try #require(try? Data(contentsOf: url), "missing golden file \(name); run with MATRIX_RECORD_GOLDEN=1",
                                    sourceLocation: sourceLocation)
        let actualLines = String(decoding: actual, as: UTF8.self).components(separatedBy: "\n")
        let expectedLines = String(decoding: expected, as: UTF8.self).components(separatedBy: "\n")
        guard let line = zip(actualLines, expectedLines).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset
            ?? (actualLines.count == expectedLines.count ? nil : min(actualLines.count, expectedLines.count)) else { return }
        let want = line < expectedLines.count ? expectedLines[line] : "<end of file>"
        let got = line < actualLines.count ? actualLines[line] : "<end of file>"
        Issue.record("\(name) differs from its golden file at line \(line + 1):\n  golden: \(want)\n  actual: \(got)",
                     sourceLocation: sourceLocation)
    }
}
