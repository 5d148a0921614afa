@testable import EvidenceStore
import Foundation
@testable import MatrixCLI
import SignedData
import Signing
@testable import TestSupport
import Testing

/// A signature proves a payload, not the record around it: signed items moved between records, repeated or
/// removed, and observations that contradict their record's own signed payloads, are each named.
@Suite("matrix verify: what a record claims is checked against what was signed")
struct VerifySignedClaimsTests {
    typealias Record = [String: Any]

    /// The run's evidence lines and their records.
    static func evidence(_ run: URL) throws -> (lines: [String], records: [Record]) {
        let lines = try JSONLines.read(run.appendingPathComponent("evidence.jsonl"))
        return (lines, try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? Record) })
    }

    /// Writes `records` over the evidence they were read from (``evidence(_:)``): an edited record as
    /// `JSONSerialization` writes it, every other one as the line it was read from (writing 153 records again
    /// took most of this suite's time).
    static func write(_ records: [Record], over original: (lines: [String], records: [Record]), to run: URL) throws {
        let lines = try records.indices.map { index in
            if original.records.indices.contains(index), same(records[index], original.records[index]) { return original.lines[index] }
            return String(decoding: try JSONSerialization.data(withJSONObject: records[index], options: [.sortedKeys, .withoutEscapingSlashes]),
                          as: UTF8.self)
        }
        try Tamper.rewrite(run.appendingPathComponent("evidence.jsonl"), lines.joined(separator: "\n") + "\n", rehashIn: run)
    }

    /// Whether two values `JSONSerialization` read are the same JSON; values of different types never are.
    static func same(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (a as Record, b as Record): a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
        case let (a as [Any], b as [Any]): a.count == b.count && zip(a, b).allSatisfy(same)
        default: type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
        }
    }

    static func index(_ records: [Record], case caseID: String, step: Int) throws -> Int {
        try #require(records.firstIndex { $0["case"] as? String == caseID && $0["step"] as? Int == step })
    }

    /// Edits the observation of the record at `index`.
    static func observe(_ records: inout [Record], _ index: Int, _ edit: (inout Record) throws -> Void) throws {
        var observed = try #require(records[index]["observed"] as? Record)
        try edit(&observed)
        records[index]["observed"] = observed
    }

    static func items(_ record: Record) throws -> [Record] {
        try #require((record["observed"] as? Record)?["signedData"] as? [Record])
    }

    @Test("Signed items swapped, repeated or removed, and claims edited against them, are named", arguments: [
        ("swap", "seq 2 (fresh-purchase/pro step 1): the observed transaction 2000000000000001 has productId com.example.storekitmatrix.pro, "
            + "its signed transaction 2000000000000001 (item 1, com.example.storekitmatrix.plus.monthly) com.example.storekitmatrix.plus.monthly"),
        ("repeat", "seq 3 (fresh-purchase/pro step 2): signed item 1 (transaction) is the one recorded at seq 2; each step signs its own"),
        ("repeat-twin-across", "seq 3 (fresh-purchase/pro step 2): signed item 1 (transaction) is the one recorded at seq 2; each step signs its own"),
        ("repeat-in-record", "seq 2 (fresh-purchase/pro step 1): signed item 3 (transaction) repeats item 1 of the same record"),
        ("repeat-twin-signature", "seq 2 (fresh-purchase/pro step 1): signed item 3 (transaction) repeats item 1 of the same record"),
        ("remove-transaction", "seq 2 (fresh-purchase/pro step 1): transaction 2000000000000001 of the step's transactionIds has no signed transaction in the record"),
        ("remove-notification", "seq 2 (fresh-purchase/pro step 1): the record reports notifications [ONE_TIME_CHARGE], its signed notifications are none"),
        ("not-revoked", "seq 82 (refund/plus-monthly step 3): the observed transaction 2000000000000001 has revocationDate none, its signed transaction "
            + "2000000000000001 (item 1, com.example.storekitmatrix.plus.monthly) 1767268800000"),
        ("entitled-after-refund", "seq 82 (refund/plus-monthly step 3): the observed entitlements hold com.example.storekitmatrix.plus.monthly, but its latest "
            + "transaction, signed transaction 2000000000000001 (item 1, com.example.storekitmatrix.plus.monthly), is revoked"),
        ("entitled-without-transaction", "seq 1 (fresh-purchase/pro step 0): the observed entitlements hold com.example.storekitmatrix.pro, "
            + "but the step observes no transaction of it"),
        ("renewal-off", "seq 5 (fresh-purchase/plus-monthly step 1): the observed renewal info of Membership has autoRenewStatus 0, "
            + "its signed renewal info (item 2) 1"),
        ("duplicate-transaction", "seq 2 (fresh-purchase/pro step 1): the observed transactions list 2000000000000001 twice"),
        ("renewal-renamed", "seq 5 (fresh-purchase/plus-monthly step 1): the observed renewal info of Membership has originalTransactionId "
            + "2000000000000099, its signed renewal info (item 2) 2000000000000001"),
        ("status-grace", "seq 5 (fresh-purchase/plus-monthly step 1): the observed subscriptionStatus of Membership is inGracePeriod, "
            + "but its signed renewal info (item 2) is not in billing retry"),
        ("entitled-after-upgrade", "seq 90 (upgrade/plus-to-premium step 2): the observed entitlements hold com.example.storekitmatrix.plus.monthly, but its latest "
            + "transaction, signed transaction 2000000000000001 (item 2, com.example.storekitmatrix.plus.monthly), is upgraded"),
    ])
    func contradiction(edit: String, finding: String) async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let original = try Self.evidence(release.run)
        var records = original.records
        let purchase = try Self.index(records, case: "fresh-purchase/pro", step: 1)
        #expect(records[purchase]["seq"] as? Int == 2)
        switch edit {
        case "swap":
            let other = try Self.index(records, case: "fresh-purchase/plus-monthly", step: 1)
            var mine = try Self.items(records[purchase]), theirs = try Self.items(records[other])
            (mine[0], theirs[0]) = (theirs[0], mine[0])
            try Self.observe(&records, purchase) { $0["signedData"] = mine }
            try Self.observe(&records, other) { $0["signedData"] = theirs }
        case "repeat":
            let copied = try Self.items(records[purchase])[0]
            try Self.observe(&records, purchase + 1) { $0["signedData"] = [copied] }
        case "repeat-twin-across":
            // The twin signature (r, n - s) verifies too: still the item of the earlier record.
            var copied = try Self.items(records[purchase])[0]
            copied["jws"] = try Self.twinSignature(try #require(copied["jws"] as? String))
            try Self.observe(&records, purchase + 1) { $0["signedData"] = [copied] }
        case "repeat-in-record":
            let items = try Self.items(records[purchase])
            try Self.observe(&records, purchase) { $0["signedData"] = items + [items[0]] }
        case "repeat-twin-signature":
            // The same item with its signature's twin (r, n - s), which verifies too: still the same item.
            let items = try Self.items(records[purchase])
            var twin = items[0]
            twin["jws"] = try Self.twinSignature(try #require(items[0]["jws"] as? String))
            #expect(twin["jws"] as? String != items[0]["jws"] as? String)
            try Self.observe(&records, purchase) { $0["signedData"] = items + [twin] }
        case "remove-transaction":
            let items = try Self.items(records[purchase])
            try Self.observe(&records, purchase) { $0["signedData"] = items.filter { $0["kind"] as? String != "transaction" } }
        case "remove-notification":
            let items = try Self.items(records[purchase])
            try Self.observe(&records, purchase) { $0["signedData"] = items.filter { $0["kind"] as? String != "notification" } }
        case "not-revoked":
            let refund = try Self.index(records, case: "refund/plus-monthly", step: 3)
            try Self.observe(&records, refund) { observed in
                var transactions = try #require(observed["transactions"] as? [Record])
                transactions[0].removeValue(forKey: "revocationDate")
                transactions[0].removeValue(forKey: "revocationReason")
                observed["transactions"] = transactions
            }
        case "entitled-after-refund":
            let refund = try Self.index(records, case: "refund/plus-monthly", step: 3)
            try Self.observe(&records, refund) { $0["entitlements"] = ["com.example.storekitmatrix.plus.monthly"] }
        case "duplicate-transaction":
            // A second copy of the signed transaction, revoked: the judge reads the last one of a product.
            try Self.observe(&records, purchase) { observed in
                var transactions = try #require(observed["transactions"] as? [Record])
                var copy = transactions[0]
                copy["revocationDate"] = 1767268800000
                copy["revocationReason"] = 0
                transactions.append(copy)
                observed["transactions"] = transactions
            }
        case "renewal-renamed":
            // Renewal info moved off the signed original transaction, so that no signed renewal info seems to match it.
            let purchase = try Self.index(records, case: "fresh-purchase/plus-monthly", step: 1)
            try Self.observe(&records, purchase) { observed in
                var renewals = try #require(observed["renewalInfo"] as? [String: Record])
                renewals["Membership"]?["originalTransactionId"] = "2000000000000099"
                renewals["Membership"]?["autoRenewStatus"] = 0
                observed["renewalInfo"] = renewals
            }
        case "renewal-off", "status-grace":
            let purchase = try Self.index(records, case: "fresh-purchase/plus-monthly", step: 1)
            try Self.observe(&records, purchase) { observed in
                if edit == "status-grace" {
                    observed["subscriptionStatus"] = ["Membership": "inGracePeriod"]
                } else {
                    var renewals = try #require(observed["renewalInfo"] as? [String: Record])
                    renewals["Membership"]?["autoRenewStatus"] = 0
                    observed["renewalInfo"] = renewals
                }
            }
        case "entitled-without-transaction":
            // A launch before any purchase: nothing is signed and nothing bought, yet the record claims an entitlement.
            let launch = try Self.index(records, case: "fresh-purchase/pro", step: 0)
            try Self.observe(&records, launch) { $0["entitlements"] = ["com.example.storekitmatrix.pro"] }
        default:
            let upgrade = try Self.index(records, case: "upgrade/plus-to-premium", step: 2)
            try Self.observe(&records, upgrade) {
                $0["entitlements"] = ["com.example.storekitmatrix.plus.monthly", "com.example.storekitmatrix.premium.yearly"]
            }
        }
        try Self.write(records, over: original, to: release.run)
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("inconsistent  " + finding), "\(result.stdout)")
        #expect(!result.stdout.contains(" FAIL "), "every signature still verifies: \(result.stdout)")
        #expect(result.stderr.contains("the evidence is inconsistent"))
    }

    /// The JWS with its ES256 signature (r, s) replaced by (r, n - s), n the order of P-256: another signature of
    /// the same signing input that ECDSA verification accepts.
    static func twinSignature(_ jws: String) throws -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let signature = try #require(Base64URL.decode(parts[2]).map(Array.init))
        try #require(signature.count == 64)
        let order: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                              0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51]
        var s = Array(signature[32...])
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(s[index]) - borrow
            s[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(signature[..<32] + s)
    }
}
