import Testing
import MatrixModel
import TestSupport

/// `matrix validate`'s coverage warnings: what a matrix leaves untested although it loads.
@Suite("Coverage warnings")
struct CoverageWarningTests {
    @Test("a product in no tier and no case, and a tier no case expects, are MX024 warnings at the catalog and the tier")
    func uncovered() throws {
        let source = MarkedSource(Sample.matrix(cases: Sample.purchaseCase, sections: """
              "tiers": {"pro": ["com.example.pro"], "vip": ⟨vip⟩["com.example.vip.monthly"]},
              "consumables": {"com.example.coins100": {"balance": "coins", "amount": 100}},
              "accounts": {"fresh": {}},
            """, header: #""schemaVersion": 1, "name": "release", "app": {"bundleId": "com.example.myapp"}, "catalog": ⟨catalog⟩"Products.storekit","#))
        let result = load(source, checksCoverage: true)
        #expect(result.matrix != nil, "warnings do not stop a matrix from loading")
        let catalog = source.location("catalog").text
        #expect(result.diagnostics.summaries == [
            "\(catalog) warning MX024 /catalog", "\(catalog) warning MX024 /catalog", "\(source.location("vip").text) warning MX024 /tiers/vip",
        ])
        #expect(result.diagnostics.map(\.message) == [
            #"catalog product "com.example.season" (nonRenewable) is in no tier and no case: no run tests it"#,
            #"catalog product "com.example.vip.yearly" (autoRenewable) is in no tier and no case: no run tests it"#,
            #"no case expects tier "vip": a run cannot tell whether the app grants it"#,
        ])
        #expect(result.diagnostics[0].hint?.contains("matrix init --update MATRIX") == true)
        #expect(result.diagnostics[2].hint == #"add a step whose expect.access includes "vip", e.g. after a purchase of "com.example.vip.monthly""#)
    }

    @Test("a product a case uses or an account of a case owns is covered; without the check, or with an error, nothing is said")
    func covered() throws {
        let source = MarkedSource(Sample.matrix(cases: """
                {"id": "a", "kind": "restore", "account": "owner", "steps": [
                  {"action": "purchase", "product": "com.example.vip.yearly", "expect": {"access": ["pro", "vip"], "entitlements": ["com.example.pro", "com.example.vip.yearly"]}},
                  {"action": "purchase", "product": "com.example.season", "expect": {"access": ["pro", "vip", "season"]}}
                ]}
            """, sections: """
              "tiers": {"pro": [], "vip": ["com.example.vip.monthly"], "season": ["com.example.season"]},
              "consumables": {"com.example.coins100": {"balance": "coins", "amount": 100}},
              "nonRenewing": {"com.example.season": {"duration": "P1Y"}},
              "accounts": {"owner": {"owns": ["com.example.pro"]}},
            """))
        #expect(load(source, checksCoverage: true).diagnostics.map(\.rendered) == [])
        let uncovered = MarkedSource(Sample.matrix(cases: Sample.purchaseCase))
        #expect(!load(uncovered, checksCoverage: true).diagnostics.isEmpty)
        #expect(load(uncovered).diagnostics.isEmpty, "only validate asks for coverage")
        let broken = MarkedSource(Sample.matrix(cases: Sample.purchaseCase.replacingOccurrences(of: "launch", with: "lunch")))
        #expect(load(broken, checksCoverage: true).diagnostics.allSatisfy { $0.code != .uncovered }, "coverage is not judged beside errors")
    }
}
