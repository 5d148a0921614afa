import Foundation
import Testing
import MatrixModel
import TestSupport

/// A matrix problem, the diagnostics it must produce, and the first diagnostic's message and hint.
struct MatrixProblem: Sendable, CustomTestStringConvertible {
    var name: String
    /// The whole matrix, with markers.
    var source: String
    /// Each expected diagnostic as `marker severity code pointer`, in the loader's (location) order.
    var expected: [String]
    var message: String
    var hint: String?
    var testDescription: String { name }

    init(_ name: String, _ source: String, _ expected: [String], message: String, hint: String? = nil) {
        self.name = name
        self.source = source
        self.expected = expected
        self.message = message
        self.hint = hint
    }

    /// The sample matrix with one case (id `a`, account `fresh`) made of `steps`.
    static func steps(_ steps: String, sections: String? = nil) -> String {
        Sample.matrix(cases: """
                {"id": "a", "kind": "fresh-purchase", "account": "fresh", "steps": [
                  \(steps)
                ]}
            """, sections: sections)
    }

    /// The sample matrix with ``Sample/purchaseCase`` and `sections` in place of tiers, consumables, non-renewing and accounts.
    static func sections(_ sections: String) -> String {
        Sample.matrix(cases: Sample.purchaseCase, sections: sections)
    }

    static let all: [MatrixProblem] = [
        MatrixProblem("invalid JSON", steps(#"{"action": "launch"} ⟨e⟩{"action": "relaunch"}"#),
                      ["e error MX001 /cases/0/steps"], message: "unexpected character '{', expected ',' or ']'", hint: "is a comma missing?"),
        MatrixProblem("wrong types", Sample.matrix(
            cases: #"    {"id": "a", "kind": ⟨k⟩7, "account": "fresh", "steps": [{"action": ⟨a⟩true}, {"action": "launch", "expect": ⟨x⟩[]}]}"#,
            header: #""schemaVersion": ⟨v⟩"1", "app": ⟨app⟩"com.example.myapp", "catalog": ⟨c⟩42,"#),
                      ["v error MX010 /schemaVersion", "app error MX010 /app", "c error MX010 /catalog",
                       "k error MX010 /cases/0/kind", "a error MX010 /cases/0/steps/0/action", "x error MX010 /cases/0/steps/1/expect"],
                      message: "expected an integer, found a string"),
        MatrixProblem("an empty bundleId", Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "app": {"bundleId": ⟨e⟩""}, "catalog": "Products.storekit","#),
                      ["e error MX019 /app/bundleId"], message: "bundleId is empty"),
        MatrixProblem("an unsupported schemaVersion", Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": ⟨e⟩2, "app": {"bundleId": "com.example.myapp"}, "catalog": "Products.storekit","#),
                      ["e error MX020 /schemaVersion"], message: "schemaVersion 2 is not supported",
                      hint: "this version of matrix reads schemaVersion 1"),

        MatrixProblem("an inline catalog that is not one", Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": ⟨e⟩{"items": []},"#),
                      ["e error MX101 /catalog"], message: #"not a StoreKit configuration: expected "products" or "subscriptionGroups""#,
                      hint: "a .storekit file is written by Xcode (File > New > File > StoreKit Configuration File)"),
        MatrixProblem("an inline catalog with a bad product", Sample.matrix(cases: Sample.purchaseCase,
            header: #""schemaVersion": 1, "app": {"bundleId": "com.example.myapp"}, "catalog": {"products": [{"productID": "com.example.pro", "type": ⟨e⟩"Lifetime"}]},"#),
                      ["e error MX102 /catalog/products/0/type"], message: #"unknown product type "Lifetime""#,
                      hint: #"expected one of "Consumable", "NonConsumable", "NonRenewingSubscription", "RecurringSubscription""#),

        // Products
        MatrixProblem("an unknown product in a step", steps(#"{"action": "purchase", "product": ⟨e⟩"com.example.prp"}"#),
                      ["e error MX013 /cases/0/steps/0/product"], message: #"unknown product "com.example.prp""#,
                      hint: #"did you mean "com.example.pro"?"#),
        MatrixProblem("an unknown product nothing like a known one", steps(#"{"action": "refund", "product": ⟨e⟩"org.other.thing"}"#),
                      ["e error MX013 /cases/0/steps/0/product"], message: #"unknown product "org.other.thing""#,
                      hint: "the catalog has no product with this ID"),
        MatrixProblem("an unknown product in a tier", sections("""
              "tiers": {"pro": [⟨e⟩"com.example.pri"]},
              "accounts": {"fresh": {}},
            """), ["e error MX013 /tiers/pro/0"], message: #"unknown product "com.example.pri""#, hint: #"did you mean "com.example.pro"?"#),
        MatrixProblem("an unknown product in entitlements",
                      steps(#"{"action": "observe", "expect": {"entitlements": [⟨e⟩"com.example.vip.montly"]}}"#),
                      ["e error MX013 /cases/0/steps/0/expect/entitlements/0"], message: #"unknown product "com.example.vip.montly""#,
                      hint: #"did you mean "com.example.vip.monthly"?"#),
        MatrixProblem("an unknown product an account owns", sections("""
              "tiers": {"pro": ["com.example.pro"]},
              "accounts": {"fresh": {}, "owner": {"owns": [⟨e⟩"com.example.Pro"]}},
            """), ["e error MX013 /accounts/owner/owns/0"], message: #"unknown product "com.example.Pro""#,
                      hint: #"did you mean "com.example.pro"?"#),
        MatrixProblem("a consumable an account owns", sections("""
              "tiers": {"pro": ["com.example.pro"]},
              "accounts": {"fresh": {}, "owner": {"owns": ["com.example.pro", ⟨e⟩"com.example.coins100"]}},
            """), ["e error MX022 /accounts/owner/owns/1"], message: #"an account cannot own consumable "com.example.coins100""#,
                      hint: "a consumable is used up once delivered; to start with a balance, begin the case with a purchase step of it"),
        MatrixProblem("a consumable in a tier (currentEntitlements never holds one)", sections("""
              "tiers": {"pro": ["com.example.pro", ⟨e⟩"com.example.coins100"]},
              "accounts": {"fresh": {}},
            """), ["e error MX022 /tiers/pro/1"], message: #"consumable "com.example.coins100" cannot grant tier "pro""#,
                      hint: "StoreKit's current entitlements never include consumables; list it under \"consumables\" with the balance it credits"),
        MatrixProblem("a consumables entry that is not a consumable", sections("""
              "tiers": {"pro": ["com.example.pro"]},
              "consumables": {⟨e⟩"com.example.pro": {"balance": "coins", "amount": 1}},
              "accounts": {"fresh": {}},
            """), ["e error MX022 /consumables/com.example.pro"], message: #"product "com.example.pro" is nonConsumable, not consumable"#),
        MatrixProblem("a quantity above 1 for a non-consumable",
                      steps(#"{"action": "purchase", "product": "com.example.pro", "quantity": ⟨e⟩2}"#),
                      ["e error MX022 /cases/0/steps/0/quantity"], message: "only consumables can be bought in a quantity above 1"),
        MatrixProblem("a quantity out of range for a non-consumable",
                      steps(#"{"action": "purchase", "product": "com.example.pro", "quantity": ⟨e⟩0}"#),
                      ["e error MX019 /cases/0/steps/0/quantity"], message: "expected an integer from 1 to 10, found 0"),
        // A number of a thousand digits is quoted by its start and length, not whole.
        MatrixProblem("a quantity of a thousand digits",
                      steps(#"{"action": "purchase", "product": "com.example.pro", "quantity": ⟨e⟩1"# + String(repeating: "0", count: 999) + "}"),
                      ["e error MX019 /cases/0/steps/0/quantity"],
                      message: "expected an integer from 1 to 10, found 100000000000000000000000… (a number of 1000 characters)"),
        MatrixProblem("a subscription action on a non-subscription", steps(#"{"action": "renew", "product": ⟨e⟩"com.example.pro"}"#),
                      ["e error MX022 /cases/0/steps/0/product"],
                      message: #"action "renew" needs an auto-renewable subscription; "com.example.pro" is nonConsumable"#),
        MatrixProblem("a non-renewing product granting a tier without a duration", sections("""
              "tiers": {"pro": ["com.example.pro"], "season": ⟨e⟩["com.example.season"]},
              "accounts": {"fresh": {}},
            """), ["e error MX011 /tiers/season"],
                      message: #"non-renewing subscription "com.example.season" grants tier "season" but has no duration"#,
                      hint: #"StoreKit gives non-renewing subscriptions no expiration date; add "nonRenewing": {"com.example.season": {"duration": "P1Y"}}"#),
        MatrixProblem("an offer the product does not have",
                      steps(#"{"action": "purchase", "product": "com.example.vip.monthly", "offer": ⟨e⟩"wintr"}"#),
                      ["e error MX019 /cases/0/steps/0/offer"], message: #""com.example.vip.monthly" has no offer "wintr""#,
                      hint: #"did you mean "winter"?"#),
        // Apple: https://developer.apple.com/documentation/storekit/product/subscriptionoffer (the introductory offer
        // applies by itself; purchase options cannot ask for it)
        MatrixProblem("an introductory offer asked for: a warning, since StoreKit has no option that asks for one",
                      steps(#"{"action": "purchase", "product": "com.example.vip.monthly", "offer": ⟨e⟩"introductory"}"#),
                      ["e warning MX019 /cases/0/steps/0/offer"],
                      message: "introductory offers apply by themselves to eligible customers; StoreKit has no purchase option that asks for one",
                      hint: #"remove "offer"; expect "transaction": {"offerType": 1} to check that the offer applied"#),
        MatrixProblem("an offer code in the app's purchase call",
                      steps(#"{"action": "purchase", "product": "com.example.vip.monthly", "offer": ⟨e⟩"press"}"#),
                      ["e error MX019 /cases/0/steps/0/offer"],
                      message: #""press" is an offer code: customers redeem offer codes outside the app's purchase call"#,
                      hint: "use a purchaseOutsideApp step to redeem it"),
        MatrixProblem("a promotional offer outside the app",
                      steps(#"{"action": "purchaseOutsideApp", "product": "com.example.vip.monthly", "offer": ⟨e⟩"winter"}"#),
                      ["e error MX019 /cases/0/steps/0/offer"],
                      message: #""winter" is a promotional offer, which only the app can apply (with its signature)"#,
                      hint: "use a purchase step to apply it"),
        MatrixProblem("a price increase without its price", steps(#"⟨e⟩{"action": "requestPriceIncrease", "product": "com.example.vip.monthly"}"#),
                      ["e error MX011 /cases/0/steps/0"],
                      message: #"missing required field "price" (the new price as the catalog writes prices, e.g. "5.99")"#),
        MatrixProblem("a price increase that does not increase",
                      steps(#"{"action": "requestPriceIncrease", "product": "com.example.vip.monthly", "price": ⟨e⟩"4.99"}"#),
                      ["e error MX019 /cases/0/steps/0/price"],
                      message: #"a price increase needs a price above 4.99, the catalog's price of "com.example.vip.monthly""#),
        MatrixProblem("a renewal-date extension of more than 90 days",
                      steps(#"{"action": "extendRenewalDate", "product": "com.example.vip.monthly", "extendByDays": ⟨e⟩91}"#),
                      ["e error MX019 /cases/0/steps/0/extendByDays"], message: "expected an integer from 1 to 90, found 91"),
        MatrixProblem("an introductory offer expectation for a non-subscription",
                      steps(#"{"action": "launch", "expect": {"introductoryOffer": {⟨e⟩"com.example.pro": "none"}}}"#),
                      ["e error MX022 /cases/0/steps/0/expect/introductoryOffer/com.example.pro"],
                      message: #"only auto-renewable subscriptions have introductory offers; "com.example.pro" is nonConsumable"#),
        MatrixProblem("a currency that is not ISO 4217",
                      steps(#"{"action": "purchase", "product": "com.example.pro", "expect": {"transaction": {"currency": ⟨e⟩"usd"}}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/transaction/currency"], message: #""usd" is not an ISO 4217 currency code"#,
                      hint: "three capital letters, e.g. USD, EUR, JPY"),
        MatrixProblem("an unknown storefront",
                      steps(#"{"action": "launch"}"#, sections: Sample.defaultSections + #"  "store": {"storefront": ⟨e⟩"UK"},"#),
                      ["e error MX019 /store/storefront"], message: #"unknown storefront "UK""#,
                      hint: "write an ISO 3166-1 alpha-3 code of an App Store storefront, e.g. USA, GBR, FRA, DEU, JPN"),
        MatrixProblem("notifications expected on StoreKit Testing in Xcode's clock",
                      steps(#"{"action": "launch", "expect": {"notifications": ⟨e⟩["TEST"]}}"#,
                            sections: Sample.defaultSections + #"  "store": {"clock": "xcode:1003"},"#),
                      ["e warning MX019 /cases/0/steps/0/expect/notifications"],
                      message: "StoreKit Testing in Xcode sends no App Store Server Notifications; this expectation is not judged on its clock",
                      hint: #"expect "serverNotifications": false, or run the case on a Sandbox or real clock"#),

        MatrixProblem("a tier's name given as an entitled product",
                      steps(#"{"action": "launch", "expect": {"entitlements": [⟨e⟩"pro"]}}"#),
                      ["e error MX013 /cases/0/steps/0/expect/entitlements/0"], message: #"unknown product "pro""#,
                      hint: #""pro" is a tier, not a product: name a product ID here, or check the tier with "access""#),
        MatrixProblem("access expected after quit, when the app is not running",
                      steps(#"{"action": "launch"}, {"action": "quit", "expect": {"access": ⟨e⟩["pro"]}}"#),
                      ["e warning MX021 /cases/0/steps/1/expect/access"],
                      message: "after quit the app is not running, so it grants no access; this expectation cannot pass",
                      hint: #"expect "access": [] here, or move the expectation to the launch or relaunch that follows"#),

        // Tiers, accounts, actions, cases
        MatrixProblem("an unknown tier in access", steps(#"{"action": "launch", "expect": {"access": ["pro", ⟨e⟩"por"]}}"#),
                      ["e error MX014 /cases/0/steps/0/expect/access/1"], message: #"unknown tier "por""#, hint: #"did you mean "pro"?"#),
        MatrixProblem("an access tier nothing like a known one", steps(#"{"action": "launch", "expect": {"access": [⟨e⟩"gold"]}}"#),
                      ["e error MX014 /cases/0/steps/0/expect/access/0"], message: #"unknown tier "gold""#, hint: #"define it under "tiers""#),
        MatrixProblem("an unknown case account", Sample.matrix(cases: """
                {"id": "a", "kind": "restore", "account": ⟨e⟩"frsh", "steps": [{"action": "restore"}]}
            """), ["e error MX015 /cases/0/account"], message: #"unknown account "frsh""#, hint: #"did you mean "fresh"?"#),
        MatrixProblem("an unknown step account",
                      steps(#"{"action": "purchase", "product": "com.example.pro", "account": ⟨e⟩"nobody"}"#),
                      ["e error MX015 /cases/0/steps/0/account"], message: #"unknown account "nobody""#, hint: #"define it under "accounts""#),
        MatrixProblem("an unknown family organizer", sections("""
              "tiers": {"pro": ["com.example.pro"]},
              "accounts": {"fresh": {}, "member": {"familyOrganizer": ⟨e⟩"fresch"}},
            """), ["e error MX015 /accounts/member/familyOrganizer"], message: #"unknown account "fresch""#, hint: #"did you mean "fresh"?"#),
        MatrixProblem("an account that is its own organizer", sections("""
              "tiers": {"pro": ["com.example.pro"]},
              "accounts": {"fresh": {"familyOrganizer": ⟨e⟩"fresh"}},
            """), ["e error MX015 /accounts/fresh/familyOrganizer"], message: "an account cannot be its own family organizer"),
        MatrixProblem("an unknown action", steps(#"{"action": ⟨e⟩"purchse", "product": "com.example.pro"}"#),
                      ["e error MX016 /cases/0/steps/0/action"], message: #"unknown action "purchse""#, hint: #"did you mean "purchase"?"#),
        MatrixProblem("restart, which is spelt like restore and means relaunch", steps(#"{"action": ⟨e⟩"restart"}"#),
                      ["e error MX016 /cases/0/steps/0/action"], message: #"unknown action "restart""#, hint: #"did you mean "relaunch"?"#),
        MatrixProblem("a cancelled outcome, which StoreKit calls userCancelled",
                      steps(#"{"action": "purchase", "product": "com.example.pro", "outcome": ⟨e⟩"cancelled"}"#),
                      ["e error MX019 /cases/0/steps/0/outcome"],
                      message: #""cancelled" is not one of success, userCancelled, pending, failed, interrupted"#, hint: #"did you mean "userCancelled"?"#),
        MatrixProblem("a cancelled result", steps(#"{"action": "purchase", "product": "com.example.pro", "expect": {"result": ⟨e⟩"canceled"}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/result"], message: #""canceled" is not a purchase result"#,
                      hint: #"did you mean "userCancelled"?"#),
        MatrixProblem("a purchase without product", steps(#"⟨e⟩{"action": "purchase", "outcome": "success"}"#),
                      ["e error MX011 /cases/0/steps/0"], message: #"missing required field "product" (the product ID acted on)"#),
        MatrixProblem("a parameter launch does not take", steps(#"{"action": "launch", "product": ⟨e⟩"com.example.pro"}"#),
                      ["e error MX021 /cases/0/steps/0/product"], message: #"action "launch" does not take "product""#),
        MatrixProblem("a parameter restore does not take", steps(#"{"action": "restore", "count": ⟨e⟩2}"#),
                      ["e error MX021 /cases/0/steps/0/count"], message: #"action "restore" does not take "count""#),
        MatrixProblem("a parameter purchase does not take", steps(#"{"action": "purchase", "product": "com.example.pro", "by": ⟨e⟩"P1M"}"#),
                      ["e error MX021 /cases/0/steps/0/by"], message: #"action "purchase" does not take "by""#),
        MatrixProblem("advanceTime with both by and to", steps(#"⟨e⟩{"action": "advanceTime", "by": "P1M", "to": "expiration"}"#),
                      ["e error MX021 /cases/0/steps/0"],
                      message: #"advanceTime takes exactly one of "by" (a duration) and "to" (expiration, gracePeriodEnd, billingRetryEnd)"#),
        MatrixProblem("advanceTime with neither by nor to", steps(#"⟨e⟩{"action": "advanceTime"}"#),
                      ["e error MX021 /cases/0/steps/0"],
                      message: #"advanceTime takes exactly one of "by" (a duration) and "to" (expiration, gracePeriodEnd, billingRetryEnd)"#),
        MatrixProblem("an unknown advanceTime point", steps(#"{"action": "advanceTime", "to": ⟨e⟩"expiry"}"#),
                      ["e error MX019 /cases/0/steps/0/to"], message: #""expiry" is not one of expiration, gracePeriodEnd, billingRetryEnd"#),
        MatrixProblem("a bad advanceTime duration", steps(#"{"action": "advanceTime", "by": ⟨e⟩"1 month"}"#),
                      ["e error MX018 /cases/0/steps/0/by"], message: #""1 month" is not an ISO 8601 duration"#,
                      hint: "write durations like P1W, P1M, P1Y, P3D or PT12H"),
        MatrixProblem("a non-renewing subscription that lasts no time", sections("""
              "tiers": {"pro": ["com.example.pro"], "season": ["com.example.season"]},
              "nonRenewing": {"com.example.season": {"duration": ⟨e⟩"P0D"}},
              "accounts": {"fresh": {}},
            """), ["e error MX018 /nonRenewing/com.example.season/duration"], message: "a non-renewing subscription cannot last P0D",
                      hint: "give the duration the app grants, such as P1M or P1Y"),
        MatrixProblem("a bad non-renewing duration", sections("""
              "tiers": {"pro": ["com.example.pro"], "season": ["com.example.season"]},
              "nonRenewing": {"com.example.season": {"duration": ⟨e⟩"P1Q"}},
              "accounts": {"fresh": {}},
            """), ["e error MX018 /nonRenewing/com.example.season/duration"], message: #""P1Q" is not an ISO 8601 duration"#,
                      hint: "write durations like P1W, P1M, P1Y, P3D or PT12H"),
        MatrixProblem("a matrix without cases", Sample.matrix(cases: "").replacingOccurrences(of: #""cases": ["#, with: #""cases": ⟨e⟩["#),
                      ["e error MX023 /cases"], message: "the matrix has no cases"),
        MatrixProblem("a case without steps", Sample.matrix(cases: #"    {"id": "a", "kind": "restore", "account": "fresh", "steps": ⟨e⟩[]}"#),
                      ["e error MX023 /cases/0/steps"], message: #"case "a" has no steps"#),

        // Expectations
        MatrixProblem("an unknown notification type", steps(#"{"action": "observe", "expect": {"notifications": [⟨e⟩"SUBSCRIBE"]}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/notifications/0"], message: #""SUBSCRIBE" is not a notification type"#,
                      hint: #"did you mean "SUBSCRIBED"?"#),
        MatrixProblem("a notification that is not TYPE or TYPE/SUBTYPE", steps(#"{"action": "observe", "expect": {"notifications": [⟨e⟩"A/B/C"]}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/notifications/0"], message: #""A/B/C" is not a notification type"#,
                      hint: "write TYPE or TYPE/SUBTYPE, e.g. SUBSCRIBED/INITIAL_BUY"),
        MatrixProblem("an unknown notification subtype",
                      steps(#"{"action": "observe", "expect": {"notifications": ["DID_RENEW", ⟨e⟩"SUBSCRIBED/INITIAL_BY"]}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/notifications/1"], message: #""INITIAL_BY" is not a subtype of SUBSCRIBED"#,
                      hint: #"did you mean "INITIAL_BUY"?"#),
        MatrixProblem("a subtype for a type without subtypes", steps(#"{"action": "observe", "expect": {"notifications": [⟨e⟩"REFUND/PARTIAL"]}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/notifications/0"], message: #""PARTIAL" is not a subtype of REFUND"#,
                      hint: "REFUND has no subtype"),
        MatrixProblem("an unknown subscription group", steps(#"{"action": "observe", "expect": {"subscriptionStatus": {⟨e⟩"VPI": "subscribed"}}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/subscriptionStatus/VPI"], message: #"unknown subscription group "VPI""#,
                      hint: #"did you mean "VIP"?"#),
        MatrixProblem("an unknown subscription state", steps(#"{"action": "observe", "expect": {"subscriptionStatus": {"VIP": ⟨e⟩"active"}}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/subscriptionStatus/VIP"], message: #""active" is not a subscription state"#,
                      hint: "expected one of subscribed, expired, inBillingRetryPeriod, inGracePeriod, revoked, none"),
        MatrixProblem("a purchase result that is not one", steps(#"{"action": "purchase", "product": "com.example.pro", "expect": {"result": ⟨e⟩"sucess"}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/result"], message: #""sucess" is not a purchase result"#,
                      hint: #"did you mean "success"?"#),
        MatrixProblem("an unknown balance", steps(#"{"action": "observe", "expect": {"balance": {⟨e⟩"coin": 100}}}"#),
                      ["e error MX019 /cases/0/steps/0/expect/balance/coin"], message: #"unknown balance "coin""#, hint: #"did you mean "coins"?"#),
        MatrixProblem("a renewal info expectation without a group", steps(#"{"action": "observe", "expect": {"renewalInfo": ⟨e⟩{"autoRenewStatus": 0}}}"#),
                      ["e error MX011 /cases/0/steps/0/expect/renewalInfo"],
                      message: #"a renewalInfo expectation needs "group" when the step names no subscription"#),
    ]

    /// The marker name of an expected line (`e error MX013 /p` → `e`).
    var markerNames: [String] { expected.map { String($0.prefix { $0 != " " }) } }
}

extension MatrixLoaderTests {
    @Test("each matrix problem is reported at its exact line and column, with code, pointer, message and hint",
          arguments: MatrixProblem.all)
    func problem(_ problem: MatrixProblem) throws {
        let source = MarkedSource(problem.source)
        let result = load(source)
        let expected = problem.expected.map { line in
            let marker = String(line.prefix { $0 != " " })
            return source.location(marker).text + line.dropFirst(marker.count)
        }
        #expect(result.diagnostics.summaries == expected)
        // A matrix with an error never loads; one with warnings only does.
        #expect((result.matrix == nil) == result.diagnostics.contains { $0.severity == .error })
        let first = try #require(result.diagnostics.first)
        #expect(first.message == problem.message)
        #expect(first.hint == problem.hint)
        #expect(first.file == Sample.file)
    }

    @Test("missing required fields are all reported, each at the object that lacks it")
    func missingFields() {
        let source = MarkedSource("""
            ⟨root⟩{
              "name": "x",
              "app": ⟨app⟩{},
              "cases": [
                ⟨case⟩{"steps": [⟨step⟩{"expect": {}}]}
              ]
            }
            """)
        let result = load(source)
        #expect(result.matrix == nil)
        let root = source.location("root").text, app = source.location("app").text
        let matrixCase = source.location("case").text, step = source.location("step").text
        #expect(result.diagnostics.summaries == [
            "\(root) error MX011 /", "\(root) error MX011 /", "\(root) error MX011 /", "\(root) error MX011 /",
            "\(app) error MX011 /app",
            "\(matrixCase) error MX011 /cases/0", "\(matrixCase) error MX011 /cases/0", "\(matrixCase) error MX011 /cases/0",
            "\(step) error MX011 /cases/0/steps/0",
        ])
        #expect(Set(result.diagnostics.map(\.message)) == [
            #"missing required field "schemaVersion" (the format version; write 1)"#,
            #"missing required field "catalog" (a path to a .storekit file, or an inline product list)"#,
            #"missing required field "tiers" (tier names mapped to the product IDs that grant them)"#,
            #"missing required field "accounts" (test account aliases)"#,
            #"missing required field "bundleId" (e.g. com.example.myapp)"#,
            #"missing required field "id" (a unique name such as fresh-purchase/pro)"#,
            #"missing required field "kind" (e.g. fresh-purchase, refund, renewal)"#,
            #"missing required field "account" (an alias from "accounts")"#,
            #"missing required field "action" (e.g. launch, purchase, refund)"#,
        ])
    }

    @Test("a missing or malformed section is reported once, not again at every use of its names")
    func noCascades() {
        let source = MarkedSource(Sample.matrix(cases: """
                ⟨case1⟩{"kind": "fresh-purchase", "account": "fresh", "steps": [
                  {"action": "purchase", "product": "com.example.pro", "account": "owner", "expect": {"access": ["pro"]}}]},
                ⟨case2⟩{"kind": "restore", "account": "fresh", "steps": [{"action": "restore", "expect": {"access": ["pro"]}}]}
            """, sections: """
              "tiers": ⟨tiers⟩["pro"],
              "accounts": ⟨accounts⟩"fresh",
              "consumables": {},
            """))
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == [
            "\(source.location("tiers").text) error MX010 /tiers",
            "\(source.location("accounts").text) error MX010 /accounts",
            "\(source.location("case1").text) error MX011 /cases/0",
            "\(source.location("case2").text) error MX011 /cases/1",
        ])
    }

    @Test("a duplicate case id points back at the first use")
    func duplicateCaseID() throws {
        let source = MarkedSource(Sample.matrix(cases: """
                {"id": ⟨first⟩"restore/none", "kind": "restore", "account": "fresh", "steps": [{"action": "restore"}]},
                {"id": "restore/other", "kind": "restore", "account": "fresh", "steps": [{"action": "restore"}]},
                {"id": ⟨second⟩"restore/none", "kind": "restore", "account": "fresh", "steps": [{"action": "restore"}]}
            """))
        let result = load(source)
        #expect(result.matrix == nil)
        #expect(result.diagnostics.summaries == ["\(source.location("second").text) error MX017 /cases/2/id"])
        #expect(result.diagnostics.first?.message == #"duplicate case id "restore/none""#)
        #expect(result.diagnostics.first?.hint == "first used at line \(source.location("first").line); case ids must be unique")
    }

    @Test("every problem in a matrix is reported at once, in file order")
    func allAtOnce() {
        let source = MarkedSource("""
            {
              "schemaVersion": ⟨v⟩3,
              "app": {"bundleId": "com.example.myapp"},
              "catalog": "Products.storekit",
              "tiers": {"pro": [⟨t⟩"com.example.pri"], "season": ⟨s⟩["com.example.season"]},
              "accounts": {"fresh": {⟨k⟩"own": []}},
              "cases": [
                {"id": "a", "kind": "fresh-purchase", "account": ⟨a⟩"fresch", "steps": [
                  {"action": ⟨x⟩"purchse"},
                  {"action": "purchase", "product": ⟨p⟩"com.example.prp", "expect": {"access": [⟨r⟩"por"]}},
                  ⟨b⟩{"action": "advanceTime", "by": "P1M", "to": "expiration"},
                  {"action": "observe", "expect": {"notifications": [⟨n⟩"DID_RENEWW"], "subscriptionStatus": {⟨g⟩"Gold": "expired"}}}
                ]},
                {"id": ⟨d⟩"a", "kind": "restore", "account": "fresh", "steps": [{"action": "advanceTime", "by": ⟨u⟩"P1X"}]}
              ]
            }
            """)
        let result = load(source)
        #expect(result.matrix == nil)
        let expected: [(String, String)] = [
            ("v", "error MX020 /schemaVersion"),
            ("t", "error MX013 /tiers/pro/0"),
            ("s", "error MX011 /tiers/season"),
            ("k", "error MX012 /accounts/fresh/own"),
            ("a", "error MX015 /cases/0/account"),
            ("x", "error MX016 /cases/0/steps/0/action"),
            ("p", "error MX013 /cases/0/steps/1/product"),
            ("r", "error MX014 /cases/0/steps/1/expect/access/0"),
            ("b", "error MX021 /cases/0/steps/2"),
            ("n", "error MX019 /cases/0/steps/3/expect/notifications/0"),
            ("g", "error MX019 /cases/0/steps/3/expect/subscriptionStatus/Gold"),
            ("d", "error MX017 /cases/1/id"),
            ("u", "error MX018 /cases/1/steps/0/by"),
        ]
        #expect(result.diagnostics.summaries == expected.map { "\(source.location($0.0).text) \($0.1)" })
        #expect(result.diagnostics.map(\.hint) == [
            "this version of matrix reads schemaVersion 1",
            #"did you mean "com.example.pro"?"#,
            #"StoreKit gives non-renewing subscriptions no expiration date; add "nonRenewing": {"com.example.season": {"duration": "P1Y"}}"#,
            #"did you mean "owns"?"#,
            #"did you mean "fresh"?"#,
            #"did you mean "purchase"?"#,
            #"did you mean "com.example.pro"?"#,
            #"did you mean "pro"?"#,
            nil,
            #"did you mean "DID_RENEW"?"#,
            #"use a group name from the catalog: "VIP""#,
            "first used at line 8; case ids must be unique",
            "write durations like P1W, P1M, P1Y, P3D or PT12H",
        ])
    }
}

/// Cases are decoded on every core; what a large matrix reports must not depend on it.
@Suite("Matrix loader, many cases")
struct ManyCasesLoaderTests {
    @Test("a matrix of 300 cases with a mistake in every seventh reports each mistake once, at its case, in line order")
    func mistakesInManyCases() throws {
        let cases = (0..<300).map { index in
            """
                {"id": "case-\(index)", "kind": "fresh-purchase", "account": "fresh", "steps": [
                  {"action": "\(index % 7 == 3 ? "purchse" : "purchase")", "product": "com.example.pro", "expect": {"access": ["pro"]}}
                ]}
            """
        }
        let result = load(MarkedSource(Sample.matrix(cases: cases.joined(separator: ",\n"))))
        let expected = (0..<300).filter { $0 % 7 == 3 }.map { "/cases/\($0)/steps/0/action" }
        #expect(result.diagnostics.map(\.pointer) == expected)
        #expect(result.diagnostics.allSatisfy { $0.code == .unknownAction && $0.message == #"unknown action "purchse""# })
        let lines = result.diagnostics.map(\.location.line)
        #expect(lines == lines.sorted())
        #expect(result.matrix == nil)

        let valid = load(MarkedSource(Sample.matrix(cases: cases.joined(separator: ",\n").replacingOccurrences(of: "purchse", with: "purchase"))))
        #expect(valid.diagnostics.isEmpty)
        #expect(try #require(valid.matrix).cases.map(\.id) == (0..<300).map { "case-\($0)" })
    }
}
