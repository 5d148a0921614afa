import Foundation
import Testing
import TestSupport

/// `matrix score` cannot be fooled by a matrix whose expectation contradicts StoreKit: where the reference app
/// fails, no fault is credited, and the report says so before anything else.
@Suite("matrix score with a failing reference")
struct ScoreReferenceTests {
    /// One wrong case (a purchase of Pro that expects no access) and one right case.
    static let matrix = #"""
    {"schemaVersion": 1, "name": "wrong", "app": {"bundleId": "com.example.storekitmatrix"}, "catalog": "Products.storekit",
     "tiers": {"pro": ["com.example.storekitmatrix.pro"]},
     "accounts": {"w": {}, "r": {}},
     "cases": [
      {"id": "wrong/pro", "kind": "fresh-purchase", "account": "w", "steps": [
        {"action": "launch", "expect": {"access": []}},
        {"action": "purchase", "product": "com.example.storekitmatrix.pro", "expect": {"access": []}}]},
      {"id": "right/pro", "kind": "fresh-purchase", "account": "r", "steps": [
        {"action": "launch", "expect": {"access": []}},
        {"action": "purchase", "product": "com.example.storekitmatrix.pro", "expect": {"access": ["pro"]}}]}]}
    """#

    @Test("the reference's failing steps come first, by name; the score is not an acceptance score and exits 1")
    func referenceFailureFirst() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-score")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit"),
                                         to: directory.appendingPathComponent("Products.storekit"))
        let path = directory.appendingPathComponent("wrong.json").path
        try Data(Self.matrix.utf8).write(to: URL(fileURLWithPath: path))

        let text = try await CommandHarness.run(["score", path])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("reference app    FAILS 1 step") == true, "\(text.stdout)")
        #expect(text.stderr.contains("wrong/pro #1 purchase"), "\(text.stderr)")
        // Located where the step is in the matrix.
        #expect(text.stderr.contains("observed [\"pro\"] (\(path):7:5)\n"), "\(text.stderr)")
        #expect(lines.last?.contains("not an acceptance score: the reference app fails 1 step") == true, "\(text.stdout)")
        // The fault caught only at the wrong step is not credited there; the right case still catches it.
        #expect(lines.contains { $0.hasPrefix("ignoresPurchaseResult") && $0.contains("caught by right/pro #1 purchase") }, "\(text.stdout)")
        #expect(!text.stdout.contains("caught by wrong/pro"), "\(text.stdout)")

        let json = try await CommandHarness.run(["score", path, "--format", "json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["referencePasses"] as? Bool == false)
        #expect((object["referenceProblems"] as? [String])?.count == 1)
        #expect((object["referenceProblems"] as? [String])?.first?.hasPrefix("wrong/pro #1 purchase") == true)
    }
}
