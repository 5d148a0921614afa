import Testing
import MatrixJSON
import MatrixModel
import TestSupport

/// Inputs shared by the matrix loader tests: a small `.storekit` catalog and a matrix built around it.
enum Sample {
    /// A format 4 catalog: a non-consumable, a consumable, a non-renewing subscription, and a group "VIP"
    /// (id 21482793) with a monthly (level 2, free week, promotional offer "winter", offer code "press") and a yearly
    /// (level 1) plan.
    static let catalog = """
        {
          "identifier": "A1B2C3D4",
          "version": {"major": 4, "minor": 0},
          "products": [
            {"productID": "com.example.pro", "type": "NonConsumable", "displayPrice": "9.99", "familyShareable": true},
            {"productID": "com.example.coins100", "type": "Consumable", "displayPrice": "0.99"}
          ],
          "nonRenewingSubscriptions": [
            {"productID": "com.example.season", "type": "NonRenewingSubscription", "displayPrice": "19.99"}
          ],
          "subscriptionGroups": [
            {"id": "21482793", "name": "VIP", "subscriptions": [
              {"productID": "com.example.vip.monthly", "type": "RecurringSubscription", "groupNumber": 2,
               "recurringSubscriptionPeriod": "P1M", "displayPrice": "4.99", "subscriptionGroupID": "21482793",
               "introductoryOffer": {"paymentMode": "free", "subscriptionPeriod": "P1W"},
               "adHocOffers": [{"offerID": "winter", "paymentMode": "payUpFront", "subscriptionPeriod": "P3M", "displayPrice": "9.99"}],
               "codeOffers": [{"offerID": "press", "paymentMode": "free", "subscriptionPeriod": "P1M"}]},
              {"productID": "com.example.vip.yearly", "type": "RecurringSubscription", "groupNumber": 1,
               "recurringSubscriptionPeriod": "P1Y", "displayPrice": "49.99", "subscriptionGroupID": "21482793"}
            ]}
          ],
          "settings": {"_storefront": "USA", "_timeRate": 0}
        }
        """

    /// The matrix file name used in diagnostics.
    static let file = "matrices/release.json"
    /// The catalog path as the reader reports it.
    static let catalogDisplayPath = "matrices/Products.storekit"

    /// A matrix over ``catalog`` with the given cases (the text inside `"cases": [ … ]`).
    ///
    /// `sections` replaces the lines between `catalog` and `cases` (tiers, consumables, non-renewing
    /// products, accounts) when given.
    static func matrix(cases: String, sections: String? = nil, header: String? = nil) -> String {
        """
        {
          \(header ?? #""schemaVersion": 1, "name": "release", "app": {"bundleId": "com.example.myapp"}, "catalog": "Products.storekit","#)
        \(sections ?? defaultSections)
          "cases": [
        \(cases)
          ]
        }
        """
    }

    static let defaultSections = """
          "tiers": {
            "pro": ["com.example.pro"],
            "vip": ["com.example.vip.monthly", "com.example.vip.yearly"],
            "season": ["com.example.season"]
          },
          "consumables": {"com.example.coins100": {"balance": "coins", "amount": 100}},
          "nonRenewing": {"com.example.season": {"duration": "P1Y"}},
          "accounts": {"fresh": {}, "owner": {"owns": ["com.example.pro"]}},
        """

    /// One valid case that purchases `pro` on `fresh`.
    static let purchaseCase = """
            {"id": "fresh-purchase/pro", "kind": "fresh-purchase", "account": "fresh", "steps": [
              {"action": "launch", "expect": {"access": []}},
              {"action": "purchase", "product": "com.example.pro", "expect": {"result": "success", "access": ["pro"]}}
            ]}
        """
}

/// Loads `source` as `matrices/release.json`; the catalog reader answers `catalog` for `Products.storekit`.
func load(_ source: MarkedSource, checksCoverage: Bool = false,
          catalog: MatrixLoader.CatalogFile = .contents(Array(Sample.catalog.utf8), displayPath: Sample.catalogDisplayPath))
    -> MatrixLoader.Result {
    MatrixLoader.load(source.bytes, file: Sample.file, checksCoverage: checksCoverage) { path in
        path == "Products.storekit" ? catalog : .unreadable(reason: "no such file")
    }
}

@Suite("Matrix loader")
struct MatrixLoaderTests {
    @Test("P0D and PT0S are durations: advanceTime by them moves the clock by nothing")
    func zeroDurations() throws {
        for text in ["P0D", "PT0S", "P0Y0M"] {
            let result = load(MarkedSource(MatrixProblem.steps(#"{"action": "advanceTime", "by": "\#(text)"}"#)))
            #expect(result.diagnostics.map(\.rendered) == [], "\(text)")
            #expect(try #require(result.matrix).cases[0].steps[0].by?.isZero == true)
        }
    }

    @Test("the sample matrix loads without diagnostics")
    func sampleLoads() throws {
        let result = load(MarkedSource(Sample.matrix(cases: Sample.purchaseCase)))
        #expect(result.diagnostics.map(\.rendered) == [])
        let matrix = try #require(result.matrix)
        #expect(matrix.cases.map(\.id) == ["fresh-purchase/pro"])
        #expect(matrix.catalogPath == "Products.storekit")
        #expect(matrix.catalog.identifier == "A1B2C3D4")
    }

    @Test("a valid matrix loads into the expected model")
    func validMatrixModel() throws {
        let source = MarkedSource("""
            {
              "$schema": "https://example.com/matrix.schema.json",
              "schemaVersion": 1,
              "name": "release",
              "description": "what ships in 1.4",
              "app": {"bundleId": "com.example.myapp", "appAppleId": 1234567890},
              "catalog": "Products.storekit",
              "tiers": {
                "vip": ["com.example.vip.monthly", "com.example.vip.yearly"],
                "pro": ["com.example.pro", "com.example.season"]
              },
              "consumables": {"com.example.coins100": {"balance": "coins", "amount": 100}},
              "nonRenewing": {"com.example.season": {"duration": "P3M"}},
              "accounts": {
                "organizer": {"description": "owns pro, shares it", "owns": ["com.example.pro", "com.example.vip.yearly"]},
                "member": {"familyOrganizer": "organizer"},
                "fresh": {}
              },
              "store": {"askToBuy": false, "gracePeriodDays": 16, "storefront": "USA"},
              "cases": [
                {"id": "renewal/vip", "kind": "renewal", "account": "fresh", "description": "a month renews",
                 "store": {"askToBuy": true},
                 "steps": [
                   {"action": "launch", "note": "first launch"},
                   {"action": "purchase", "product": "com.example.vip.monthly", "outcome": "success",
                    "appAccountToken": "7E1D5D4A-2C5B-4A63-9E0B-6F1A2B3C4D5E", "terminate": "beforeFinish",
                    "expect": {"result": "success", "access": ["vip"], "entitlements": ["com.example.vip.monthly"],
                               "subscriptionStatus": {"21482793": "subscribed"}, "notifications": ["SUBSCRIBED/INITIAL_BUY"],
                               "transaction": {"offerType": 1, "inAppOwnershipType": "PURCHASED", "transactionReason": "PURCHASE",
                                               "price": 0, "currency": "USD", "expiresAfter": "P1W"},
                               "displayPrice": {"com.example.vip.monthly": "$4.99"}, "introductoryOffer": {"com.example.vip.monthly": "freeTrial"},
                               "serverNotifications": true}},
                   {"action": "requestPriceIncrease", "product": "com.example.vip.monthly", "price": "5.99"},
                   {"action": "extendRenewalDate", "product": "com.example.vip.monthly", "extendByDays": 30},
                   {"action": "requestRefund", "product": "com.example.vip.monthly"},
                   {"action": "requestTestNotification", "expect": {"notifications": ["TEST"]}},
                   {"action": "advanceTime", "by": "P1M", "product": "com.example.vip.monthly"},
                   {"action": "advanceTime", "to": "expiration"},
                   {"action": "renew", "count": 3, "expect": {"renewals": 3, "notifications": ["DID_RENEW", "DID_RENEW", "DID_RENEW"]}},
                   {"action": "failRenewal", "product": "com.example.vip.monthly", "gracePeriod": true,
                    "expect": {"subscriptionStatus": {"VIP": "inGracePeriod"},
                               "renewalInfo": {"group": "21482793", "autoRenewStatus": true, "isInBillingRetryPeriod": true}}},
                   {"action": "refund", "product": "com.example.vip.monthly", "reason": 1, "account": "member",
                    "expect": {"transaction": {"revoked": true, "revocationReason": 1}}},
                   {"action": "switchDevice", "device": "iPad"},
                   {"action": "restore", "expect": {"result": "nothingToRestore"}}
                 ]},
                {"id": "consumable/coins", "kind": "consumable", "account": "fresh", "steps": [
                  {"action": "purchase", "product": "com.example.coins100", "quantity": 3, "expect": {"balance": {"coins": 300}}},
                  {"action": "purchase", "product": "com.example.vip.monthly", "offer": "winter", "outcome": "pending",
                   "expect": {"result": "pending", "access": []}}
                ]}
              ]
            }
            """)
        let result = load(source)
        #expect(result.diagnostics.map(\.rendered) == [])
        let matrix = try #require(result.matrix)

        #expect(matrix.name == "release")
        #expect(matrix.schemaVersion == 1)
        #expect(matrix.app == AppInfo(bundleId: "com.example.myapp", appAppleId: 1_234_567_890))
        #expect(matrix.catalogPath == "Products.storekit")
        #expect(matrix.catalog.products.map(\.productID) == [
            "com.example.pro", "com.example.coins100", "com.example.season", "com.example.vip.monthly", "com.example.vip.yearly",
        ])
        #expect(matrix.tiers == [
            Tier(name: "vip", productIDs: ["com.example.vip.monthly", "com.example.vip.yearly"]),
            Tier(name: "pro", productIDs: ["com.example.pro", "com.example.season"]),
        ])
        #expect(matrix.consumables == ["com.example.coins100": ConsumableSpec(balance: "coins", amount: 100)])
        #expect(matrix.nonRenewing == ["com.example.season": NonRenewingSpec(duration: ISO8601Duration(months: 3))])
        #expect(matrix.accounts == [
            Account(alias: "organizer", description: "owns pro, shares it", owns: ["com.example.pro", "com.example.vip.yearly"]),
            Account(alias: "member", familyOrganizer: "organizer"),
            Account(alias: "fresh"),
        ])
        #expect(matrix.store == StoreSettings(askToBuy: false, gracePeriodDays: 16, storefront: "USA"))
        #expect(matrix.access(for: ["com.example.season"]) == ["pro"])

        let renewal = try #require(matrix.cases.first)
        #expect(renewal.id == "renewal/vip")
        #expect(renewal.kind == "renewal")
        #expect(renewal.account == "fresh")
        #expect(renewal.description == "a month renews")
        #expect(renewal.store == StoreSettings(askToBuy: true))
        #expect(matrix.storeSettings(for: renewal) == StoreSettings(askToBuy: true, gracePeriodDays: 16, storefront: "USA"))
        #expect(renewal.steps == [
            Step(action: .launch, note: "first launch"),
            Step(action: .purchase, product: "com.example.vip.monthly", outcome: .success,
                 appAccountToken: "7E1D5D4A-2C5B-4A63-9E0B-6F1A2B3C4D5E", terminate: .beforeFinish,
                 expect: Expectation(access: ["vip"], entitlements: ["com.example.vip.monthly"], result: "success",
                                     subscriptionStatus: ["VIP": "subscribed"], notifications: ["SUBSCRIBED/INITIAL_BUY"],
                                     transaction: TransactionExpectation(inAppOwnershipType: "PURCHASED", transactionReason: "PURCHASE",
                                                                         offerType: 1, price: 0, currency: "USD",
                                                                         expiresAfter: ISO8601Duration(weeks: 1)),
                                     displayPrice: ["com.example.vip.monthly": "$4.99"],
                                     introductoryOffer: ["com.example.vip.monthly": "freeTrial"], serverNotifications: true)),
            Step(action: .requestPriceIncrease, product: "com.example.vip.monthly", price: "5.99"),
            Step(action: .extendRenewalDate, product: "com.example.vip.monthly", extendByDays: 30),
            Step(action: .requestRefund, product: "com.example.vip.monthly"),
            Step(action: .requestTestNotification, expect: Expectation(notifications: ["TEST"])),
            Step(action: .advanceTime, product: "com.example.vip.monthly", by: ISO8601Duration(months: 1)),
            Step(action: .advanceTime, to: .expiration),
            Step(action: .renew, count: 3, expect: Expectation(notifications: ["DID_RENEW", "DID_RENEW", "DID_RENEW"], renewals: 3)),
            Step(action: .failRenewal, product: "com.example.vip.monthly", gracePeriod: true,
                 expect: Expectation(subscriptionStatus: ["VIP": "inGracePeriod"],
                                     renewalInfo: RenewalInfoExpectation(group: "VIP", autoRenewStatus: 1, isInBillingRetryPeriod: true))),
            Step(action: .refund, product: "com.example.vip.monthly", account: "member", reason: 1,
                 expect: Expectation(transaction: TransactionExpectation(revoked: true, revocationReason: 1))),
            Step(action: .switchDevice, device: "iPad"),
            Step(action: .restore, expect: Expectation(result: "nothingToRestore")),
        ])

        let consumable = try #require(matrix.cases.last)
        #expect(consumable.store == StoreSettings())
        #expect(consumable.steps == [
            Step(action: .purchase, product: "com.example.coins100", quantity: 3, expect: Expectation(balance: ["coins": 300])),
            Step(action: .purchase, product: "com.example.vip.monthly", outcome: .pending, offer: "winter",
                 expect: Expectation(access: [], result: "pending")),
        ])
    }

    @Test("an inline catalog needs no version and no file")
    func inlineCatalog() throws {
        let source = MarkedSource(Sample.matrix(
            cases: """
                {"id": "a", "kind": "fresh-purchase", "account": "fresh", "steps": [
                  {"action": "purchase", "product": "com.example.lifetime", "expect": {"access": ["pro"]}}]}
            """,
            sections: """
                  "tiers": {"pro": ["com.example.lifetime"]},
                  "accounts": {"fresh": {}},
                """,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": {"products": [{"productID": "com.example.lifetime", "type": "NonConsumable"}]},"#))
        let result = MatrixLoader.load(source.bytes, file: Sample.file) { path in
            Issue.record("an inline catalog must not be read from \(path)")
            return .unreadable(reason: "unexpected")
        }
        #expect(result.diagnostics.map(\.rendered) == [])
        let matrix = try #require(result.matrix)
        #expect(matrix.catalogPath == nil)
        #expect(matrix.name == "matrix")
        #expect(matrix.catalog.products.map(\.productID) == ["com.example.lifetime"])
        #expect(matrix.catalog.product("com.example.lifetime")?.type == .nonConsumable)
    }

    @Test("warnings alone do not stop a matrix from loading")
    func warningsOnly() throws {
        let source = MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": ⟨kind⟩"refnd", "account": "fresh", "steps": [
                  {"action": "launch", ⟨ticket⟩"x-ticket": "QA-12", "expect": {"access": []}}]}
            """, header: #""schemaVersion": 1, ⟨owner⟩"x-owner": "x", "app": {"bundleId": "com.example.myapp"}, "catalog": "Products.storekit","#))
        let result = load(source)
        #expect(result.matrix != nil)
        #expect(result.diagnostics.summaries == [
            "\(source.location("owner").text) warning MX012 /x-owner",
            "\(source.location("kind").text) warning MX019 /cases/0/kind",
            "\(source.location("ticket").text) warning MX012 /cases/0/steps/0/x-ticket",
        ])
        #expect(result.diagnostics.map(\.hint) == [nil, #"did you mean "refund"?"#, nil])
        #expect(result.diagnostics[0].message == #"unknown key "x-owner"; it is ignored"#)
        #expect(result.diagnostics[1].message == #"case kind "refnd" is not one the documentation names"#)
    }

    @Test("a misspelt key is an error wherever it is: \"expcet\" would otherwise drop a step's checks in silence")
    func misspeltKeys() throws {
        let source = MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": "refund", "account": "fresh", "steps": [
                  {"action": "launch", ⟨expect⟩"expcet": {"access": ["pro"]}, ⟨notes⟩"notes": "typo"}]}
            """, header: #""schemaVersion": 1, ⟨name⟩"nmae": "x", "app": {"bundleId": "com.example.myapp"}, "catalog": "Products.storekit","#))
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == [
            "\(source.location("name").text) error MX012 /nmae",
            "\(source.location("expect").text) error MX012 /cases/0/steps/0/expcet",
            "\(source.location("notes").text) error MX012 /cases/0/steps/0/notes",
        ])
        #expect(result.diagnostics.map(\.hint) == [#"did you mean "name"?"#, #"did you mean "expect"?"#, #"did you mean "note"?"#])
        #expect(result.diagnostics[1].message == #"unknown key "expcet"; it would be ignored"#)
    }

    @Test("failNext loads on any step; a call it cannot name, an error the call cannot throw, a missing or unknown member are located errors")
    func failNext() throws {
        let good = load(MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": "fresh-purchase", "account": "fresh", "steps": [
                  {"action": "launch", "failNext": {"call": "products", "error": "networkError"}},
                  {"action": "purchase", "product": "com.example.pro", "failNext": {"call": "purchase", "error": "ineligibleForOffer"}}]}
            """)))
        #expect(good.diagnostics.map(\.rendered) == [])
        let steps = try #require(good.matrix?.cases.first?.steps)
        #expect(steps.map(\.failNext) == [FailNext(call: .products, error: "networkError"), FailNext(call: .purchase, error: "ineligibleForOffer")])

        let source = MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": "fresh-purchase", "account": "fresh", "steps": [
                  {"action": "restore", "failNext": {"call": "sync", "error": ⟨sync⟩"invalidQuantity"}},
                  {"action": "launch", "failNext": {"call": ⟨call⟩"load", "error": "networkError"}},
                  {"action": "launch", "failNext": ⟨missing⟩{"call": "verification"}},
                  {"action": "launch", "failNext": {"call": "verification", "error": ⟨typo⟩"invalidSignatur"}}]}
            """))
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == [
            "\(source.location("sync").text) error MX019 /cases/0/steps/0/failNext/error",
            "\(source.location("call").text) error MX019 /cases/0/steps/1/failNext/call",
            "\(source.location("missing").text) error MX011 /cases/0/steps/2/failNext",
            "\(source.location("typo").text) error MX019 /cases/0/steps/3/failNext/error",
        ])
        #expect(result.diagnostics[0].message == #"failNext: AppStore.sync() cannot fail with "invalidQuantity""#)
        #expect(result.diagnostics[3].hint == #"did you mean "invalidSignature"?"#)
    }

    @Test("an unknown key in an expectation is an error: a typo there would silently judge nothing")
    func unknownExpectationKey() throws {
        let source = MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": "refund", "account": "fresh", "steps": [
                  {"action": "launch", "expect": {⟨acess⟩"acess": [], "transaction": {"product": "com.example.pro", ⟨rev⟩"revokd": true}}}]}
            """))
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == [
            "\(source.location("acess").text) error MX012 /cases/0/steps/0/expect/acess",
            "\(source.location("rev").text) error MX012 /cases/0/steps/0/expect/transaction/revokd",
        ])
        #expect(result.diagnostics.map(\.hint) == [#"did you mean "access"?"#, #"did you mean "revoked"?"#])
        #expect(result.diagnostics[0].message == #"unknown key "acess"; it would be ignored"#)
    }

    @Test("a duplicate key in the matrix is an MX004 warning")
    func duplicateKey() throws {
        let source = MarkedSource(Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "name": "a", ⟨dup⟩"name": "b", "app": {"bundleId": "com.example.myapp"}, "catalog": "Products.storekit","#))
        let result = load(source)
        #expect(result.matrix?.name == "b")
        #expect(result.diagnostics.summaries == ["\(source.location("dup").text) warning MX004 /name"])
    }

    @Test("a syntax error stops loading; warnings found before it come with it, in file order")
    func syntaxErrorWithWarning() {
        let source = MarkedSource("""
            {
              "schemaVersion": 1,
              ⟨w⟩"schemaVersion": 1,
              "cases": [⟨e⟩}
            }
            """)
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == [
            "\(source.location("w").text) warning MX004 /schemaVersion",
            "\(source.location("e").text) error MX001 /cases/0",
        ])
    }

    // MARK: Rendering

    @Test("diagnostics render compiler-style: file:line:column: severity: message (at /pointer); hint [code]")
    func rendered() throws {
        let source = MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": "fresh-purchase", "account": "fresh", "steps": [
                  {"action": "purchase", "product": ⟨p⟩"com.example.prp"}]}
            """))
        let result = load(source)
        let location = source.location("p")
        #expect(result.diagnostics.map(\.rendered) == [
            "matrices/release.json:\(location.line):\(location.column): error: unknown product \"com.example.prp\" "
                + "(at /cases/0/steps/0/product); did you mean \"com.example.pro\"? [MX013]",
        ])
        #expect(Diagnostic(.warning, .unknownKey, "unknown key \"x\"; it is ignored", pointer: "", location: .init(line: 3, column: 7)).rendered
                == "<input>:3:7: warning: unknown key \"x\"; it is ignored (at /) [MX012]")
        #expect(Diagnostic(.note, .invalidValue, "see here", file: "a.json", pointer: "/a~1b", location: .start, hint: "fix it").rendered
                == "a.json:1:1: note: see here (at /a~1b); fix it [MX019]")
    }

    @Test("diagnostics sort by file, then line and column, then severity")
    func sorting() {
        let diagnostics = [
            Diagnostic(.warning, .unknownKey, "w", file: "b.json", pointer: "", location: .init(line: 1, column: 1)),
            Diagnostic(.warning, .unknownKey, "w", file: "a.json", pointer: "", location: .init(line: 2, column: 1)),
            Diagnostic(.error, .invalidValue, "e", file: "a.json", pointer: "", location: .init(line: 2, column: 1)),
            Diagnostic(.error, .invalidValue, "e", file: "a.json", pointer: "", location: .init(line: 1, column: 9)),
        ]
        #expect(diagnostics.sortedByLocation.map { "\($0.file ?? "") \($0.location.text) \($0.severity)" } == [
            "a.json 1:9 error", "a.json 2:1 error", "a.json 2:1 warning", "b.json 1:1 warning",
        ])
        #expect(diagnostics.hasErrors)
        #expect(!diagnostics.filter { $0.severity == .warning }.hasErrors)
    }

    // MARK: Catalog problems

    @Test("a catalog that cannot be read is MX100 at the matrix's catalog field, and no matrix", arguments: [
        "no such file", "is a directory", "permission denied",
    ])
    func unreadableCatalog(reason: String) throws {
        // The renewal case's renewalInfo expectation names no group: whether its step's product is a
        // subscription is for the catalog to say, so that is not reported either.
        let renewal = """
                {"id": "renewal/vip", "kind": "renewal", "account": "fresh", "steps": [
                  {"action": "renew", "product": "com.example.vip.monthly", "expect": {"renewalInfo": {"autoRenewStatus": true}}}
                ]}
            """
        let source = MarkedSource(Sample.matrix(cases: Sample.purchaseCase + ",\n" + renewal,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": ⟨c⟩"Products.storekit","#))
        let result = load(source, catalog: .unreadable(reason: reason))
        #expect(result.matrix == nil)
        // Products are not checked against a catalog that could not be read: one error, no cascade.
        #expect(result.diagnostics.summaries == ["\(source.location("c").text) error MX100 /catalog"])
        let diagnostic = try #require(result.diagnostics.first)
        #expect(diagnostic.message == "cannot read catalog \"Products.storekit\": \(reason)")
        #expect(diagnostic.hint == "the catalog path is relative to the matrix file")
        #expect(diagnostic.file == Sample.file)

        // An absolute path is not relative to anything: no such hint.
        let absolute = MarkedSource(Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": "/no/Products.storekit","#))
        #expect(load(absolute, catalog: .unreadable(reason: reason)).diagnostics.first?.hint == nil)
    }

    @Test("a catalog that is empty or not a StoreKit configuration is reported in the catalog and at the catalog field", arguments: [
        ("", "1:1 error MX005 /"),
        ("{}", "1:1 error MX101 /"),
        ("[1, 2]", "1:1 error MX101 /"),
        (#"{"schemaVersion": 1, "cases": []}"#, "1:1 error MX101 /"),
        ("{\n  \"version\": {\"major\": 1},\n  \"products\": [{\"type\": \"Consumable\"}]\n}", "3:16 error MX102 /products/0"),
        ("{\"version\": {\"major\": 1},\n \"products\": [}", "2:15 error MX001 /products/0"),
    ])
    func unusableCatalog(contents: String, catalogDiagnostic: String) throws {
        let source = MarkedSource(Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": ⟨c⟩"Products.storekit","#))
        let result = load(source, catalog: .contents(Array(contents.utf8), displayPath: Sample.catalogDisplayPath))
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == [catalogDiagnostic, "\(source.location("c").text) error MX100 /catalog"])
        #expect(result.diagnostics.map(\.file) == [Sample.catalogDisplayPath, Sample.file])
        #expect(result.diagnostics.last?.message
                == "catalog \"Products.storekit\" is not a usable StoreKit configuration (see the errors in matrices/Products.storekit)")
    }

    @Test("an empty catalog path is MX100")
    func emptyCatalogPath() {
        let source = MarkedSource(Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": ⟨c⟩"","#))
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == ["\(source.location("c").text) error MX100 /catalog"])
        #expect(result.diagnostics.first?.message == "the catalog path is empty")
    }

    @Test("catalog warnings are passed on and the matrix still loads")
    func catalogWarnings() throws {
        let catalog = #"{"version": {"major": 9}, "products": [{"productID": "com.example.pro", "type": "NonConsumable"}]}"#
        let source = MarkedSource(Sample.matrix(cases: Sample.purchaseCase, sections: """
              "tiers": {"pro": ["com.example.pro"]},
              "accounts": {"fresh": {}},
            """))
        let result = load(source, catalog: .contents(Array(catalog.utf8), displayPath: Sample.catalogDisplayPath))
        #expect(result.matrix?.catalog.formatVersion.description == "9.0")
        #expect(result.diagnostics.summaries == ["1:13 warning MX102 /version"])
        #expect(result.diagnostics.first?.file == Sample.catalogDisplayPath)
    }
}
