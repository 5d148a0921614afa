import Foundation
import Testing
@testable import MatrixCLI
@testable import TestSupport

/// `matrix init`, `matrix plan` and `matrix score` at the command line, in process.
@Suite("matrix init, plan and score")
struct InitPlanCommandTests {
    @Test("init writes a matrix that validates cleanly, with the catalog path relative to it, and never replaces a file without --force")
    func initWritesOnce() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = directory.appendingPathComponent("Products.storekit").path
        let out = directory.appendingPathComponent("matrices/release.json").path
        let first = try await CommandHarness.run(["init", "--catalog", catalog, "--out", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.isEmpty)
        #expect(first.stderr.contains("wrote \(out): 41 cases, 5 tiers, 44 accounts"))
        #expect(first.stderr.contains("note: non-renewing com.example.storekitmatrix.season: assumed to last P1Y"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        #expect(object["catalog"] as? String == "../Products.storekit")
        let validate = try await CommandHarness.run(["validate", "--strict", out])
        #expect(validate.status == 0)
        #expect(validate.stderr == "1 file checked: 0 errors, 0 warnings\n")

        try Data("keep".utf8).write(to: URL(fileURLWithPath: out))
        let again = try await CommandHarness.run(["init", "--catalog", catalog, "--out", out])
        #expect(again.status == 64)
        #expect(again.stderr.contains("error: \(out) exists; pass --force to replace it, or choose another --out"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep")
        let forced = try await CommandHarness.run(["init", "--catalog", catalog, "--out", out, "--force", "--bundle-id", "com.acme.app"])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains(#""bundleId": "com.acme.app""#))

        // Without --name the matrix is named after its file; stdout's is "release".
        let smoke = directory.appendingPathComponent("matrices/smoke.json").path
        #expect(try await CommandHarness.run(["init", "--catalog", catalog, "--out", smoke]).status == 0)
        let named = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: smoke))) as? [String: Any])
        #expect(named["name"] as? String == "smoke")
        #expect(InitCommand.defaultName(out: nil) == "release")
        #expect(InitCommand.defaultName(out: "a/b.c/nightly.matrix.json") == "nightly.matrix")
        #expect(InitCommand.defaultName(out: "matrices/.json") == "release")
    }

    @Test("init --out - writes the matrix to stdout; a missing catalog exits 66, one that is not a StoreKit configuration 65")
    func initStdoutAndBadCatalogs() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = directory.appendingPathComponent("Products.storekit").path
        let stdout = try await CommandHarness.run(["init", "--catalog", catalog, "--out", "-"])
        #expect(stdout.status == 0)
        #expect(stdout.stdout.hasPrefix("{\n  \"$schema\": "))
        #expect(try JSONSerialization.jsonObject(with: Data(stdout.stdout.utf8)) is [String: Any])
        #expect(stdout.stderr.contains("is relative to the current directory, and a matrix reads it relative to its own file"),
                "stdout has no file for the catalog path to be relative to: \(stdout.stderr)")

        let missing = try await CommandHarness.run(["init", "--catalog", directory.appendingPathComponent("none.storekit").path])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot read catalog"))
        let notCatalog = directory.appendingPathComponent("other.json")
        try Data(#"{"hello": 1}"#.utf8).write(to: notCatalog)
        let invalid = try await CommandHarness.run(["init", "--catalog", notCatalog.path, "--out", directory.appendingPathComponent("m.json").path])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("not a StoreKit configuration"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("m.json").path))
        let usage = try await CommandHarness.run(["init"])
        #expect(usage.status == 64 && usage.stderr.contains("missing --catalog FILE"))
    }

    @Test("plan prints per case steps and waits, and the totals; --format json is versioned")
    func plan() async throws {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let text = try await CommandHarness.run(["plan", release, "--env", "sandbox", "--accounts", "3"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("clock sandbox:5: Sandbox, monthly renewal every 5 minutes (default)"))
        // Plus Monthly's free week applies by itself: the first renewal comes after it, 3 minutes at sandbox:5.
        #expect(text.stdout.contains("  #2  wait 3 minutes for renewal 1 of at most 12 of Plus Monthly (com.example.storekitmatrix.plus.monthly)"))
        #expect(text.stdout.contains("environment-limit/testflight-daily-renewals · account environment-limit-testflight-daily-renewals · SKIPPED"))
        #expect(text.stdout.contains("over 3 accounts in parallel: "))
        // The non-renewing cases wait a real year and a week; the total without them is what a clock changes.
        #expect(text.stdout.contains("  without the 2 cases that wait days of real time (below): 4 hours 10 minutes 21 seconds 429 milliseconds\n"))
        let json = try await CommandHarness.run(["plan", release, "--env", "testflight", "--format", "json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["planVersion"] as? Int == 2)
        #expect(object["clock"] as? String == "testflight")
        let cases = try #require(object["cases"] as? [[String: Any]])
        let daily = try #require(cases.first { $0["id"] as? String == "environment-limit/testflight-daily-renewals" })
        #expect(daily["waitMs"] as? Int == 7 * 86_400_000)
    }

    @Test("plan groups the release matrix by billing grace period, states each case's setup, and warns that Xcode's default is real time")
    func planGroupsAndSetup() async throws {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let text = try await CommandHarness.run(["plan", release, "--env", "sandbox", "--accounts", "2"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("group 1 of 4 · billing grace period 16 days\n      set: set the billing grace period to 16 days in App Store Connect\n"))
        #expect(text.stdout.contains("group 2 of 4 · billing grace period off\n      set: turn the billing grace period off in App Store Connect\n"))
        #expect(text.stdout.contains("      setup: cancel-purchase-sheet must own Pro (com.example.storekitmatrix.pro): buy it first with "
            + "cancel-purchase-sheet in the app and let the app finish the purchase\n"))
        #expect(text.stdout.contains("      setup: clear the purchase history first: matrix sandbox clear family-member family-organizer\n"))
        let json = try await CommandHarness.run(["plan", release, "--env", "sandbox", "--accounts", "2", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.compactMap { ($0["appSettings"] as? [String: Int])?["gracePeriodDays"] } == [16, 0])
        #expect(groups.compactMap { $0["parallelMs"] as? Int }.reduce(0, +) == object["parallelMs"] as? Int)

        let xcode = try await CommandHarness.run(["plan", release, "--env", "xcode", "--format", "json"])
        #expect(xcode.status == 0)
        #expect(xcode.stderr.contains("note: the catalog's _timeRate is 0 and --clock was not given: that is real time"))
        let fast = try await CommandHarness.run(["plan", release, "--env", "xcode", "--clock", "xcode:13"])
        #expect(fast.status == 0 && !fast.stdout.contains("note:") && !fast.stderr.contains("note:"))
    }

    @Test("plan usage errors exit 64: no --env, an unknown one, a clock of another environment")
    func planUsage() async throws {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let noEnv = try await CommandHarness.run(["plan", release])
        #expect(noEnv.status == 64 && noEnv.stderr.contains("missing --env"))
        let unknown = try await CommandHarness.run(["plan", release, "--env", "sandbx"])
        #expect(unknown.status == 64 && unknown.stderr.contains("did you mean sandbox?"))
        let wrongClock = try await CommandHarness.run(["plan", release, "--env", "sandbox", "--clock", "testflight"])
        #expect(wrongClock.status == 64 && wrongClock.stderr.contains("--clock testflight is not a clock of Sandbox"))
    }

    @Test("score counts only the faults the catalog can show: a consumable-only matrix scores 100 % over 8 faults")
    func scoreNotApplicable() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = directory.appendingPathComponent("Tip.storekit")
        try FileManager.default.copyItem(at: Fixtures.storeKitDirectory.appendingPathComponent("Kanunnikoff__Kamyal-iOS__Store.storekit"), to: catalog)
        let out = directory.appendingPathComponent("tip.json").path
        #expect(try await CommandHarness.run(["init", "--catalog", catalog.path, "--out", out]).status == 0)
        let score = try await CommandHarness.run(["score", out, "--format", "json"])
        #expect(score.status == 0, "\(score.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(score.stdout.utf8)) as? [String: Any])
        #expect(object["applicable"] as? Int == 8)
        #expect(object["caught"] as? Int == 8)
        #expect(object["score"] as? Int == 100)
        let faults = try #require(object["faults"] as? [[String: Any]])
        let family = try #require(faults.first { $0["fault"] as? String == "ignoresFamilySharing" })
        #expect(family["applicable"] as? Bool == false)
        #expect(family["notApplicableReason"] as? String
            == "needs a family-shareable non-consumable or auto-renewable subscription; the catalog has none")
        let text = try await CommandHarness.run(["score", out])
        #expect(text.stdout.contains("score: 8/8 faults caught (100 %); 17 not applicable to this catalog"))
    }
}

/// `matrix init --update MATRIX` on the shipped matrix after a product was added to its catalog.
@Suite("matrix init --update")
struct InitUpdateTests {
    /// The shipped matrix in a scratch directory, beside its catalog with `product` (a `.storekit` product
    /// object) added first; returns the directory, the matrix's path and its original text.
    static func matrixWithNewProduct(_ product: String, in name: String) throws -> (directory: URL, path: String, original: String) {
        let directory = try MatrixBinary.scratchDirectory(name)
        let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")
        let catalog = try String(contentsOf: matrices.appendingPathComponent("Products.storekit"), encoding: .utf8)
            .replacingOccurrences(of: "\"products\" : [\n", with: "\"products\" : [\n" + product + ",\n")
        try catalog.write(to: directory.appendingPathComponent("Products.storekit"), atomically: true, encoding: .utf8)
        let original = try String(contentsOf: matrices.appendingPathComponent("release.json"), encoding: .utf8)
        let path = directory.appendingPathComponent("release.json").path
        try original.write(toFile: path, atomically: true, encoding: .utf8)
        return (directory, path, original)
    }

    @Test("a product added to the catalog gets its cases in place; the rest of the matrix is kept; a second update adds nothing")
    func update() async throws {
        let (directory, path, original) = try Self.matrixWithNewProduct("""
            {"productID": "com.example.storekitmatrix.themes", "type": "NonConsumable", "referenceName": "Themes",
             "displayPrice": "4.99", "familyShareable": false, "internalID": "9001", "localizations": []}
            """, in: "matrix-update")
        defer { try? FileManager.default.removeItem(at: directory) }

        let warned = try await CommandHarness.run(["validate", path])
        #expect(warned.stderr.contains(#"catalog product "com.example.storekitmatrix.themes" (nonConsumable) is in no tier and no case"#), "\(warned.stderr)")
        let refused = try await CommandHarness.run(["init", "--update", path, "--catalog", "x.storekit"])
        #expect(refused.status == 64 && refused.stderr.contains("leave out --catalog"))

        let updated = try await CommandHarness.run(["init", "--update", path])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(updated.stderr.contains("for 1 new product (com.example.storekitmatrix.themes): added 3 cases, 3 accounts; tiers: themes"), "\(updated.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix(String(original.prefix(400))) && text.count > original.count)
        let clean = try await CommandHarness.run(["validate", "--strict", path])
        #expect(clean.status == 0, "\(clean.stderr)")
        let again = try await CommandHarness.run(["init", "--update", path])
        #expect(again.status == 0 && again.stderr.contains("already tests every product of its catalog; nothing to add"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test("an update says what it assumed for a new product, as init does: a non-renewing subscription's duration")
    func updateNotes() async throws {
        let (directory, path, _) = try Self.matrixWithNewProduct("""
            {"productID": "com.example.storekitmatrix.retreat", "type": "NonRenewingSubscription", "referenceName": "Retreat Pass",
             "displayPrice": "29.99", "familyShareable": false, "internalID": "9002", "localizations": []}
            """, in: "matrix-update-notes")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A run that passes says so of the product no case tests.
        let run = try await CommandHarness.run(["run", path, "--out", directory.appendingPathComponent("out").path, "--case", "refund/pro"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: 1 catalog product no case tests: com.example.storekitmatrix.retreat; `matrix init --update \(path)` "
                                    + "adds its cases"), "\(run.stderr)")
        let updated = try await CommandHarness.run(["init", "--update", path])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(updated.stderr.contains("note: non-renewing com.example.storekitmatrix.retreat: assumed to last P1Y (its name names no period)"),
                "\(updated.stderr)")
        // Only the new product is described: the matrix's own products were chosen before.
        #expect(!updated.stderr.contains("note: consumable"), "\(updated.stderr)")
    }
}

/// What `matrix score` says about a fault it misses and one the matrix's tiers cannot show.
@Suite("matrix score: missed and not applicable")
struct ScoreExplainsTests {
    @Test("a missed fault names the case kind and product that would catch it; levels with one tier make keepsUpgradedProduct not applicable")
    func missedAndTierModel() async throws {
        let directory = try MatrixBinary.scratchDirectory("matrix-score")
        defer { try? FileManager.default.removeItem(at: directory) }
        let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")
        try FileManager.default.copyItem(at: matrices.appendingPathComponent("Products.storekit"), to: directory.appendingPathComponent("Products.storekit"))
        let text = try String(contentsOf: matrices.appendingPathComponent("release.json"), encoding: .utf8)
        let release = directory.appendingPathComponent("release.json").path
        try text.write(toFile: release, atomically: true, encoding: .utf8)
        let missed = try await CommandHarness.run(["score", release, "--kind", "fresh-purchase"])
        #expect(missed.status == 1)
        // The fault column is as wide as the longest fault name: compare each row without its padding.
        func row(_ fault: String) -> String? {
            missed.stdout.split(separator: "\n").first { $0.hasPrefix(fault + " ") }.map { fault + " " + $0.dropFirst(fault.count).drop { $0 == " " } }
        }
        #expect(row("deniesGracePeriod") == "deniesGracePeriod MISSED — entitlements filtered by expiration date, denying the billing grace period; "
                + "a grace-period case on com.example.storekitmatrix.plus.monthly would catch it", "\(missed.stdout)")
        #expect(row("restoreReportsSuccess") == "restoreReportsSuccess MISSED — restore reports success with nothing to restore; a restore case on "
                + "com.example.storekitmatrix.pro would catch it", "\(missed.stdout)")

        // One tier for both levels of the group: an upgrade cannot change access.
        let oneTier = text.replacingOccurrences(of: #""plus": ["com.example.storekitmatrix.plus.monthly"],"#,
                                                with: #""member": ["com.example.storekitmatrix.plus.monthly"],"#)
            .replacingOccurrences(of: #""premium": ["com.example.storekitmatrix.premium.yearly"],"#, with: "")
            .replacingOccurrences(of: #""member": ["#, with: #""member": ["com.example.storekitmatrix.premium.yearly", "#)
            .replacingOccurrences(of: #""plus""#, with: #""member""#).replacingOccurrences(of: #""premium""#, with: #""member""#)
        let merged = directory.appendingPathComponent("one-tier.json").path
        try oneTier.write(toFile: merged, atomically: true, encoding: .utf8)
        let json = try await CommandHarness.run(["score", merged, "--kind", "upgrade", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stderr)")
        let faults = try #require(object["faults"] as? [[String: Any]])
        let upgrade = try #require(faults.first { $0["fault"] as? String == "keepsUpgradedProduct" })
        #expect(upgrade["applicable"] as? Bool == false)
        #expect((upgrade["notApplicableReason"] as? String)?.hasPrefix(#"every upgrade in group "Membership" ("member")"#) == true, "\(upgrade)")
    }
}

/// Where `matrix init` points `catalog` and `$schema` from the matrix it writes.
@Suite("Relative paths")
struct RelativePathTests {
    @Test("a path as seen from a directory", arguments: [
        ("matrices", "Products.storekit", "../Products.storekit"),
        ("", "Products.storekit", "Products.storekit"),
        ("a/b", "a/c/P.storekit", "../c/P.storekit"),
        ("/x/y", "/x/y/P.storekit", "P.storekit"),
        ("./m/../n", "n/P.storekit", "P.storekit"),
    ])
    func relative(_ directory: String, _ target: String, _ expected: String) {
        #expect(RelativePath.from(directory: directory, to: target) == expected)
    }
}
