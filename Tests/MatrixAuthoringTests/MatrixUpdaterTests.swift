import Foundation
import Testing
@testable import MatrixAuthoring
@testable import MatrixModel

/// `matrix init --update`: cases for new catalog products, added by insertion only.
@Suite("Matrix updater")
struct MatrixUpdaterTests {
    /// A hand-edited matrix over an inline catalog: `products` are the catalog's entries, `accounts` its accounts.
    static func matrix(products: String, accounts: String = #""buyer": {"description": "mine"}"#) -> String {
        """
        {
          "schemaVersion": 1,
          "name": "edited",
          "app": {"bundleId": "com.example.app"},
          "catalog": {"products": [
            {"productID": "com.example.app.pro", "type": "NonConsumable", "referenceName": "Pro"}\(products)
          ]},
          "tiers": {
            "pro": ["com.example.app.pro"]
          },
          "accounts": {
            \(accounts)
          },
          "cases": [
            {"id": "mine/pro", "kind": "fresh-purchase", "account": "buyer", "steps": [
              {"action": "launch", "expect": {"access": []}},
              {"action": "purchase", "product": "com.example.app.pro", "expect": {"access": ["pro"]}}
            ]}
          ]
        }

        """
    }

    static let newProducts = """
        ,
            {"productID": "com.example.app.coins100", "type": "Consumable", "referenceName": "100 Coins"},
            {"productID": "com.example.app.season", "type": "NonRenewingSubscription", "referenceName": "Season Pass"},
            {"productID": "com.example.app.themes", "type": "NonConsumable", "referenceName": "Themes"}
        """

    func load(_ text: String) throws -> Matrix {
        let result = MatrixLoader.load(Array(text.utf8), file: "m.json", checksCoverage: true) { _ in .unreadable(reason: "inline") }
        return try #require(result.matrix, "\(result.diagnostics.map(\.rendered))")
    }

    /// Whether `original` is `updated` with only insertions made.
    func onlyInserted(_ original: [UInt8], into updated: [UInt8]) -> Bool {
        var iterator = updated.makeIterator()
        return original.allSatisfy { byte in
            while let next = iterator.next() { if next == byte { return true } }
            return false
        }
    }

    @Test("new products get their tiers, sections, accounts and cases; the edited text is kept byte for byte")
    func addsNewProducts() throws {
        let text = Self.matrix(products: Self.newProducts)
        let before = try load(text)
        #expect(before.untestedProducts.map(\.productID) == ["com.example.app.coins100", "com.example.app.season", "com.example.app.themes"])
        let output = try MatrixUpdater.update(Array(text.utf8), matrix: before)
        #expect(output.addedProducts == ["com.example.app.coins100", "com.example.app.season", "com.example.app.themes"])
        #expect(onlyInserted(Array(text.utf8), into: output.bytes))
        #expect(output.tierChanges == ["themes", "season-pass"], "in the order init writes tiers")
        #expect(output.addedCases.contains("fresh-purchase/themes") && output.addedCases.contains("non-renewing/season-pass"), "\(output.addedCases)")
        #expect(!output.addedCases.contains { $0.hasPrefix("mine/") || $0.hasSuffix("/pro") }, "nothing is added for pro, which the matrix tests")

        let result = MatrixLoader.load(output.bytes, file: "m.json", checksCoverage: true) { _ in .unreadable(reason: "inline") }
        #expect(result.diagnostics.map(\.rendered) == [], "the updated matrix loads clean, every product and tier covered")
        let after = try #require(result.matrix)
        #expect(after.consumables["com.example.app.coins100"] == ConsumableSpec(balance: "coins", amount: 100), "a missing section is created")
        #expect(after.nonRenewing["com.example.app.season"] != nil)
        #expect(after.cases.first?.id == "mine/pro" && after.account("buyer")?.description == "mine")

        let again = try MatrixUpdater.update(output.bytes, matrix: after)
        #expect(again.addedProducts.isEmpty && again.bytes == output.bytes, "a second update adds nothing")
    }

    @Test("an alias the matrix already uses for another account is not reused: the new case gets its own")
    func aliasCollision() throws {
        let plain = try MatrixUpdater.update(Array(Self.matrix(products: Self.newProducts).utf8), matrix: try load(Self.matrix(products: Self.newProducts)))
        let alias = try #require(plain.addedAccounts.first)
        let text = Self.matrix(products: Self.newProducts,
                               accounts: #""buyer": {"description": "mine"}, "\#(alias)": {"description": "owns pro", "owns": ["com.example.app.pro"]}"#)
        let output = try MatrixUpdater.update(Array(text.utf8), matrix: try load(text))
        #expect(output.addedAccounts.contains(alias + "-2") && !output.addedAccounts.contains(alias), "\(output.addedAccounts)")
        let after = try load(String(decoding: output.bytes, as: UTF8.self))
        #expect(after.account(alias)?.owns == ["com.example.app.pro"], "the team's account is untouched")
        #expect(after.cases.contains { $0.account == alias + "-2" })
    }

    @Test("a new plan in a group joins the tier of the plans the matrix already tiers, and its cases expect that tier")
    func joinsExistingTier() throws {
        let group = #"""
            ],
            "subscriptionGroups": [{"id": "1", "name": "Club", "subscriptions": [
              {"productID": "com.example.app.club.monthly", "type": "RecurringSubscription", "groupNumber": 1, "recurringSubscriptionPeriod": "P1M", "subscriptionGroupID": "1", "referenceName": "Club Monthly"},
              {"productID": "com.example.app.club.yearly", "type": "RecurringSubscription", "groupNumber": 1, "recurringSubscriptionPeriod": "P1Y", "subscriptionGroupID": "1", "referenceName": "Club Yearly"}
            ]}
            """#
        var text = Self.matrix(products: "").replacingOccurrences(of: "\n  ]},\n  \"tiers\"", with: "\n" + group + "]},\n  \"tiers\"")
        text = text.replacingOccurrences(of: #""pro": ["com.example.app.pro"]"#, with: #""pro": ["com.example.app.pro"],"# + "\n    " + #""members": ["com.example.app.club.monthly"]"#)
        text = text.replacingOccurrences(of: #"{"access": ["pro"]}}"#, with: #"{"access": ["pro"]}},"# + "\n      "
            + #"{"action": "purchase", "product": "com.example.app.club.monthly", "expect": {"access": ["pro", "members"]}}"#)
        let output = try MatrixUpdater.update(Array(text.utf8), matrix: try load(text))
        #expect(output.addedProducts == ["com.example.app.club.yearly"])
        #expect(output.tierChanges == ["members (+ com.example.app.club.yearly)"])
        let updated = String(decoding: output.bytes, as: UTF8.self)
        #expect(updated.contains(#""members": ["com.example.app.club.monthly", "com.example.app.club.yearly"]"#))
        let after = try load(updated)
        let yearly = after.cases.filter { $0.steps.contains { $0.product == "com.example.app.club.yearly" } }
        #expect(!yearly.isEmpty)
        #expect(yearly.allSatisfy { $0.steps.allSatisfy { Set($0.expect?.access ?? []).isSubset(of: ["pro", "members"]) } },
                "the cases use the matrix's tier name, not the one init would have chosen")
    }
}
