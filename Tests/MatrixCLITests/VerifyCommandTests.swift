@testable import EvidenceStore
@testable import EvidenceVerification
import Foundation
@testable import MatrixCLI
@testable import MatrixModel
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// `matrix verify` on one JWS, a file of JWS and a run directory.
@Suite("matrix verify")
struct VerifyCommandTests {
    static let bundleId = "com.example.storekitmatrix"
    static let xcodeTransaction = Fixtures.packageDirectory.appendingPathComponent("Tests/SignedDataTests/Fixtures/xcode/xcode-signed-transaction").path

    static func signed(_ payload: [String: Any]) throws -> String {
        try SimulatorPKI.default.sign(payload: JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
    }

    static func transaction(bundleId: String = bundleId, environment: String = "Sandbox") throws -> String {
        try signed(["bundleId": bundleId, "environment": environment, "signedDate": 1_767_225_600_000,
                    "transactionId": "2000000000000001", "productId": "com.example.storekitmatrix.pro"])
    }

    @Test("A run whose matrix cannot be found is verified with a warning, even with --quiet; --matrix names it")
    func matrixElsewhere() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let manifestURL = release.run.appendingPathComponent("run.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        var reference = try #require(manifest["matrix"] as? [String: Any])
        reference["path"] = "moved-away/release.json"
        manifest["matrix"] = reference
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        // summary.md and report.html show the matrix path: a run recorded with this path has it in its reports too.
        let stale = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("does not verify; report.html, summary.md do not match the evidence"), "\(stale.stderr)")
        try await Tamper.renderReportsAgain(in: release.run)
        // Where the matrix is must not decide whether records are judged again: without it, the run does not verify…
        let lost = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(lost.status == 1)
        #expect(lost.stderr.contains("does not verify; records cannot be checked against the matrix nor their verdicts judged again: the run's "
                                     + "matrix moved-away/release.json cannot be read from here; pass --matrix FILE, or --without-matrix "
                                     + "to verify files and signatures only"), "\(lost.stderr)")
        // …unless the caller accepts files and signatures alone, with a warning.
        let unjudged = try await CapturedRun.run(["verify", release.run.path, "--quiet", "--without-matrix"])
        #expect(unjudged.status == 0, "\(unjudged.stderr)")
        #expect(unjudged.stderr.contains("warning: records not checked against the matrix, verdicts not re-judged: the run's matrix "
                                         + "moved-away/release.json cannot be read from here"), "\(unjudged.stderr)")
        #expect(unjudged.stderr.contains("warning: bundleId not compared: the run's matrix moved-away/release.json cannot be read from here"),
                "\(unjudged.stderr)")
        // A --matrix that is not the run's is refused, not taken as a reason to judge nothing.
        let other = release.root.appendingPathComponent("other.json")
        try (try String(contentsOf: Fixtures.packageDirectory.appendingPathComponent("matrices/release.json"), encoding: .utf8) + "\n")
            .write(to: other, atomically: true, encoding: .utf8)
        let wrong = try await CapturedRun.run(["verify", release.run.path, "--quiet", "--matrix", other.path])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("--matrix \(other.path) is not the matrix the run ran: its SHA-256 differs from run.json's"), "\(wrong.stderr)")
        // A byte-identical copy away from its catalog: the catalog is missing, not changed.
        let copy = release.root.appendingPathComponent("copy.json")
        try Data(contentsOf: Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")).write(to: copy)
        let away = try await CapturedRun.run(["verify", release.run.path, "--quiet", "--matrix", copy.path])
        #expect(away.status == 1)
        #expect(away.stderr.contains("the catalog of \(copy.path) cannot be read from there; a matrix names its catalog relative to its own file"),
                "\(away.stderr)")
        #expect(!away.stderr.contains("SHA-256 differs"), "\(away.stderr)")
        let path = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let named = try await CapturedRun.run(["verify", release.run.path, "--matrix", path])
        #expect(named.status == 0)
        #expect(!named.stderr.contains("warning:"), "\(named.stderr)")
        // The note names the file checked, not the path run.json records.
        #expect(named.stderr.contains("from \(path) (its SHA-256 matches run.json)"), "\(named.stderr)")
    }

    // Apple: https://developer.apple.com/documentation/appstoreservernotifications/data
    @Test("A notification's nested signedTransactionInfo and signedRenewalInfo are verified on their own")
    func nestedNotificationData() throws {
        let checker = SignedDataChecker(roots: try TrustRoots.resolve(["simulator"]), bundleId: Self.bundleId, environment: nil, appAppleId: nil)
        let good = try Self.transaction()
        // A renewal info whose signature was altered: the outer notification still verifies.
        var forged = try Self.signed(["environment": "Sandbox", "signedDate": 1_767_225_600_000, "originalTransactionId": "2000000000000001",
                                      "autoRenewProductId": "com.example.storekitmatrix.plus.monthly", "autoRenewStatus": 1])
        let last = forged.index(forged.endIndex, offsetBy: -10)
        forged.replaceSubrange(last...last, with: forged[last] == "A" ? "B" : "A")
        let notification = try Self.signed([
            "notificationType": "REFUND", "notificationUUID": "4f2c1b1e-1111-4222-8333-944455556666", "version": "2.0",
            "signedDate": 1_767_225_600_000,
            "data": ["bundleId": Self.bundleId, "environment": "Sandbox", "signedTransactionInfo": good, "signedRenewalInfo": forged],
        ])
        let outcome = checker.check(notification, kind: .notification)
        #expect(outcome.status == .verified, "\(outcome.failureText)")
        let nested = RunVerification.nestedSignedData(of: outcome)
        #expect(nested.map(\.0) == [.transaction, .renewalInfo])
        #expect(nested.map(\.1) == [good, forged])
        #expect(checker.check(nested[0].1, kind: .transaction).status == .verified)
        #expect(checker.check(nested[1].1, kind: .renewalInfo).status == .failed)
    }

    @Test("A simulator JWS verifies with --root simulator: the payload on stdout, the verdict on stderr")
    func verifiesWithSimulatorRoot() async throws {
        let result = try await CapturedRun.run(["verify", try Self.transaction(), "--root", "simulator", "--bundle-id", Self.bundleId,
                                                "--environment", "Sandbox"])
        #expect(result.status == 0, "\(result.stderr)")
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(payload["transactionId"] as? String == "2000000000000001")
        #expect(result.stderr.contains("verified: transaction from the command line; signature and chain verified at 2026-01-01T00:00:00Z"))
        #expect(!result.stderr.contains("note:"))
    }

    @Test("The default root is Apple Root CA - G3, which does not trust the simulator chain: exit 1 with a hint")
    func defaultRootIsApple() async throws {
        let result = try await CapturedRun.run(["verify", try Self.transaction()])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("error: transaction from the command line does not verify: verification failure [VERIFICATION_FAILURE]: The certificate chain does not verify"))
        #expect(result.stderr.contains("pass --root simulator"))
    }

    @Test("Wrong bundle id and wrong environment fail in Apple's words", arguments: [
        (["--bundle-id", "com.example.other"], "invalid app identifier [INVALID_APP_IDENTIFIER]"),
        (["--environment", "Production", "--app-apple-id", "1"], "invalid environment [INVALID_ENVIRONMENT]"),
    ])
    func wrongAppOrEnvironment(options: [String], words: String) async throws {
        let result = try await CapturedRun.run(["verify", try Self.transaction(), "--root", "simulator"] + options)
        #expect(result.status == 1)
        #expect(result.stderr.contains(words), "\(result.stderr)")
    }

    @Test("Without --bundle-id and --environment, notes say what was not compared")
    func notesSayWhatWasNotCompared() async throws {
        let result = try await CapturedRun.run(["verify", try Self.transaction(), "--root", "simulator"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("note: bundleId not compared; pass --bundle-id to check it"))
        #expect(result.stderr.contains("note: environment taken from the payload (Sandbox), not compared"))
    }

    @Test("Xcode data is decoded with a note that its signature is not checked only under --environment Xcode; otherwise it fails")
    func xcodeData() async throws {
        let decoded = try await CapturedRun.run(["verify", Self.xcodeTransaction, "--environment", "Xcode"])
        #expect(decoded.status == 0)
        #expect(decoded.stdout.contains("\"purchaseDate\": 1697679936049.7297"))
        #expect(decoded.stderr.contains("signature NOT checked (Xcode data"))
        // The payload saying Xcode is no reason to skip the signature check.
        let unasked = try await CapturedRun.run(["verify", Self.xcodeTransaction])
        #expect(unasked.status == 1)
        #expect(unasked.stderr.contains("invalid JWT format [INVALID_JWT_FORMAT]"))
        #expect(unasked.stderr.contains("hint: the payload names environment Xcode"))
        let strict = try await CapturedRun.run(["verify", Self.xcodeTransaction, "--environment", "Sandbox"])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("invalid JWT format [INVALID_JWT_FORMAT]"))
    }

    @Test("The kind is detected from the payload, and --kind overrides it")
    func kindDetection() async throws {
        let renewal = try Self.signed(["environment": "Sandbox", "signedDate": 1_767_225_600_000, "autoRenewStatus": 1, "productId": "p"])
        let notification = try Self.signed(["notificationType": "DID_RENEW", "signedDate": 1_767_225_600_000,
                                            "data": ["bundleId": Self.bundleId, "environment": "Sandbox"]])
        for (jws, kind) in [(renewal, "renewalInfo"), (notification, "notification")] {
            let result = try await CapturedRun.run(["verify", jws, "--root", "simulator", "--format", "json"])
            #expect(result.status == 0)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(document["kind"] as? String == kind)
            #expect(document["status"] as? String == "verified")
        }
        // As a transaction, the notification has no bundleId at the top level.
        let forced = try await CapturedRun.run(["verify", notification, "--root", "simulator", "--kind", "transaction", "--bundle-id", Self.bundleId])
        #expect(forced.status == 1)
        #expect(forced.stderr.contains("INVALID_APP_IDENTIFIER"))
    }

    @Test("Inputs that are not a JWS, run or archive exit 65; inputs that do not exist exit 66")
    func inputs() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt")
        try "hello.world.again\n".write(to: text, atomically: true, encoding: .utf8)
        let notJWS = try await CapturedRun.run(["verify", text.path])
        #expect(notJWS.status == 65)
        #expect(notJWS.stderr.contains("is neither a compact JWS, a run directory nor a run archive"))
        let emptyDirectory = try await CapturedRun.run(["verify", directory.path])
        #expect(emptyDirectory.status == 65)
        #expect(emptyDirectory.stderr.contains("is not a run directory: it has no run.json"))
        let missing = try await CapturedRun.run(["verify", directory.appendingPathComponent("release.json").path])
        #expect(missing.status == 66)
        let usage = try await CapturedRun.run(["verify", "--environment", "sandbox", "x"])
        #expect(usage.status == 64)
        #expect(VerifyCommand.looksLikeJWS(try Self.transaction()))
        #expect(!VerifyCommand.looksLikeJWS("release.json.bak"))
    }

    @Test("--batch verifies every line, names the lines that fail, and reports the rate")
    func batch() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try Self.transaction()
        let lines = [good, "", "# a comment", try Self.transaction(), try Self.transaction(bundleId: "com.example.other"), good]
        let file = directory.appendingPathComponent("jws.txt")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["verify", "--batch", file.path, "--root", "simulator", "--bundle-id", Self.bundleId])
        #expect(result.status == 1)
        #expect(result.stdout == "line 5: transaction: invalid app identifier [INVALID_APP_IDENTIFIER]: The payload's bundleId is \"com.example.other\" but this verifier expects \"com.example.storekitmatrix\".\n")
        #expect(result.stderr.contains("4 JWS from \(file.path): 3 verified, 1 failed ("))
        #expect(result.stderr.contains("per second)"))
    }

    @Test("A run directory verifies; altered, missing and extra files are each named")
    func runDirectory() async throws {
        let release = try await ReleaseRun.make()
        defer { release.remove() }
        // A summary by default: nothing failed, so nothing is listed; --verbose lists every file and record.
        let summary = try await CapturedRun.run(["verify", release.run.path])
        #expect(summary.status == 0, "\(summary.stderr)")
        #expect(summary.stdout.isEmpty, "\(summary.stdout.prefix(300))")
        #expect(summary.stderr.contains("verified: run directory \(release.run.path)") && summary.stderr.contains(" is unaltered: "))
        #expect(summary.stderr.contains("signed items verified to StoreKit Matrix Simulator Root CA (NOT Apple); 3 reports match the evidence\n"),
                "\(summary.stderr)")
        let clean = try await CapturedRun.run(["verify", release.run.path, "--verbose"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.contains("run.json      ok        evidence.jsonl"))
        #expect(clean.stdout.contains("record    2  ok    fresh-purchase/pro #1 purchase: 3 verified (transaction, notification, notification.transaction)"))
        #expect(clean.stderr.contains("note: bundleId com.example.storekitmatrix from"))
        #expect(clean.stderr.contains("signed items verified to StoreKit Matrix Simulator Root CA (NOT Apple)"))
        let json = try await CapturedRun.run(["verify", release.run.path, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["passed"] as? Bool == true)
        #expect((document["files"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == ["evidence.jsonl", "junit.xml", "report.html", "summary.md"])
        // Each report rendered again from run.json and the evidence has the SHA-256 run.json lists for it.
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: release.run.appendingPathComponent("run.json"))) as? [String: Any])["files"]
            as? [String: String]
        let reports = try #require(document["reports"] as? [[String: Any]])
        #expect(reports.compactMap { $0["path"] as? String } == ["junit.xml", "report.html", "summary.md"])
        for report in reports {
            let path = try #require(report["path"] as? String)
            #expect(report["matchesEvidence"] as? Bool == true, "\(report)")
            #expect(report["renderedSHA256"] as? String == listed?[path], "\(path)")
            #expect(report["actualSHA256"] as? String == listed?[path], "\(path)")
        }
        let records = try #require(document["records"] as? [[String: Any]])
        #expect(records.count == (try JSONLines.read(release.run.appendingPathComponent("evidence.jsonl"))).count)

        try Tamper.flipSignatureByte(in: release.run.appendingPathComponent("evidence.jsonl"))
        try FileManager.default.removeItem(at: release.run.appendingPathComponent("junit.xml"))
        try "added".write(to: release.run.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        // A report edited in place: its file is not what run.json lists, nor what the evidence renders.
        let summaryURL = release.run.appendingPathComponent("summary.md")
        let original = try Data(contentsOf: summaryURL)
        let edited = Data(String(decoding: original, as: UTF8.self).replacingOccurrences(of: "embedded simulator", with: "iPhone 16").utf8)
        try edited.write(to: summaryURL)
        let tampered = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(tampered.status == 1)
        #expect(tampered.stdout.contains("run.json      ALTERED   evidence.jsonl: SHA-256 is"))
        #expect(tampered.stdout.contains("run.json      ALTERED   summary.md: SHA-256 is"))
        #expect(tampered.stdout.contains("inconsistent  summary.md does not match the evidence: rendered from run.json and evidence.jsonl, its SHA-256 is "
                                         + "\(SHA256.hexHash(original).prefix(16))… as run.json lists, but the file's is \(SHA256.hexHash(edited).prefix(16))…"),
                "\(tampered.stdout)")
        // junit.xml is gone, but what run.json lists for it is still what the evidence renders.
        #expect(!tampered.stdout.contains("junit.xml does not match"), "\(tampered.stdout)")
        #expect(tampered.stdout.contains("run.json      MISSING   junit.xml: listed in run.json but not present"))
        #expect(tampered.stdout.contains("run.json      EXTRA     notes.txt: present but not listed in run.json"))
        #expect(tampered.stdout.contains("verification failure [VERIFICATION_FAILURE]"))
        #expect(!tampered.stdout.contains(" ok "))
        #expect(tampered.stderr.contains("altered: evidence.jsonl, summary.md; missing: junit.xml; extra: notes.txt; 1 signed item in 1 record failed "
                                         + "verification; summary.md does not match the evidence"), "\(tampered.stderr)")
    }

    // The run claims a device it never ran on, in one report, with run.json's SHA-256 of that report rewritten.
    @Test("A report edited and re-hashed in run.json does not verify: it is rendered again from run.json and the evidence",
          arguments: ["junit.xml", "summary.md", "report.html"])
    func editedReport(name: String) async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let url = release.run.appendingPathComponent(name)
        let original = try Data(contentsOf: url)
        let edited = String(decoding: original, as: UTF8.self).replacingOccurrences(of: "embedded simulator", with: "iPhone 16")
        try #require(Data(edited.utf8) != original)
        try Tamper.rewrite(url, edited, rehashIn: release.run)
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1)
        #expect(!result.stdout.contains("ALTERED"), "run.json lists the edited report's SHA-256: \(result.stdout)")
        // Rendered again, the report is the one the run wrote.
        #expect(result.stdout == "inconsistent  \(name) does not match the evidence: rendered from run.json and evidence.jsonl, its SHA-256 is "
                + "\(SHA256.hexHash(original).prefix(16))…, run.json lists \(SHA256.hexHash(Data(edited.utf8)).prefix(16))…\n")
        #expect(result.stderr.contains("does not verify; \(name) does not match the evidence\n"), "\(result.stderr)")
    }

    @Test("The reports of a run recorded by another version are not compared, and a warning says so even with --quiet")
    func reportsOfAnotherVersion() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try VerifyMissingFieldTests.editManifest(release.run) { $0["toolVersion"] = "0.0.9" }
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("warning: reports not compared with the evidence: the run was recorded by matrix 0.0.9 and this is matrix "
                                       + "\(ToolVersion.current), whose reports may be worded differently"), "\(result.stderr)")
        #expect(!result.stderr.contains("reports match"), "\(result.stderr)")
    }

    @Test("A TestFlight-clock run's billing-retry skips verify; a step it performed, relabelled skipped, does not")
    func skipsOfAnEmbeddedRun() async throws {
        let release = try await ReleaseRun.make(["--clock", "testflight", "--case", "grace-period/*", "--case", "fresh-purchase/pro"])
        defer { release.remove() }
        let genuine = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(genuine.status == 0, "\(genuine.stdout) \(genuine.stderr)")
        let original = try VerifySignedClaimsTests.evidence(release.run)
        var records = original.records
        let skips = records.filter { $0["verdict"] as? String == "skipped" }
        #expect(!skips.isEmpty && skips.allSatisfy { $0["environmentLimit"] as? String == "billingRetry" })
        // The purchase, which TestFlight performs, recorded as if the billing-retry limit had skipped it.
        let purchase = try VerifySignedClaimsTests.index(records, case: "fresh-purchase/pro", step: 1)
        records[purchase]["verdict"] = "skipped"
        records[purchase]["environmentLimit"] = "billingRetry"
        records[purchase]["reason"] = skips[0]["reason"]
        records[purchase].removeValue(forKey: "observed")
        try VerifySignedClaimsTests.write(records, over: original, to: release.run)
        let edited = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(edited.status == 1)
        #expect(edited.stdout.contains("(fresh-purchase/pro step 1): recorded skipped, but local can perform this step on clock testflight"),
                "\(edited.stdout)")
    }

    @Test("A local run relabelled to turn off the embedded rules does not verify: \"Local\" is local, no driver runs it, a name that only looks like local is no name, and a server run talks to a backend",
          arguments: ["Local", "driver", "local\u{A0}", "server"])
    func relabelledEmbeddedRun(edit: String) async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let original = try VerifySignedClaimsTests.evidence(release.run)
        var records = original.records
        let purchase = try VerifySignedClaimsTests.index(records, case: "fresh-purchase/pro", step: 1)
        records[purchase]["verdict"] = "skipped"
        records[purchase]["environmentLimit"] = "renewalLimit"
        records[purchase].removeValue(forKey: "observed")
        let renamed = edit == "driver" ? nil : edit
        if let renamed { for index in records.indices { records[index]["environment"] = renamed } }
        try VerifySignedClaimsTests.write(records, over: original, to: release.run)
        try VerifyMissingFieldTests.editManifest(release.run) { manifest in
            if let renamed { manifest["environment"] = renamed } else { manifest["driver"] = [String]() }
        }
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        switch edit {
        case "local\u{A0}":
            #expect(result.stdout.contains(#"run.json's environment "local\u{A0}" is not an environment name"#), "\(result.stdout)")
        case "server":
            #expect(result.stdout.contains("seq 1 (fresh-purchase/pro step 0): the record holds no exchange with the backend, which a server run "
                                           + "records at every step"), "\(result.stdout)")
        default:
            #expect(result.stdout.contains("(fresh-purchase/pro step 1): recorded skipped, but \(edit == "Local" ? "Local" : "local") skips a step "
                                           + "only for the billingRetry limit"), "\(result.stdout)")
        }
        if edit == "driver" {
            #expect(result.stdout.contains("run.json names a driver command, but no driver runs the local environment"), "\(result.stdout)")
        }
    }

    @Test("A run that names the server environment and a driver command does not verify: no driver runs a server run")
    func driverMadeServerRun() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let original = try VerifySignedClaimsTests.evidence(release.run)
        var records = original.records
        for index in records.indices { records[index]["environment"] = "server" }
        try VerifySignedClaimsTests.write(records, over: original, to: release.run)
        try VerifyMissingFieldTests.editManifest(release.run) { manifest in
            manifest["environment"] = "server"
            manifest["driver"] = ["/usr/local/bin/wrapper", "matrix", "driver", "local"]
        }
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("run.json names a driver command, but no driver runs the server environment"), "\(result.stdout)")
    }

    @Test("A matrix shipped inside the run directory is never the one records are judged against")
    func matrixInsideTheRun() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        // The attacker's matrix, whose catalog is the real one, listed in run.json like any run file.
        let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")
        var matrix = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: matrices.appendingPathComponent("release.json"))) as? [String: Any])
        matrix["catalog"] = matrices.appendingPathComponent("Products.storekit").path
        let text = String(decoding: try JSONSerialization.data(withJSONObject: matrix), as: UTF8.self)
        try Tamper.rewrite(release.run.appendingPathComponent("m.json"), text, rehashIn: release.run)
        try VerifyMissingFieldTests.editManifest(release.run) { manifest in
            var reference = manifest["matrix"] as? [String: Any] ?? [:]
            reference["path"] = release.run.lastPathComponent + "/m.json"
            reference["sha256"] = SHA256.hexHash(Data(text.utf8))
            manifest["matrix"] = reference
        }
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("records cannot be checked against the matrix nor their verdicts judged again: the run's matrix "
                                       + "\(release.run.lastPathComponent)/m.json cannot be read from here"), "\(result.stderr)")
    }

    @Test("An interrupted run's counts are the evidence's too: edited, the run does not verify")
    func interruptedCounts() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try VerifyMissingFieldTests.editManifest(release.run) { manifest in
            manifest["status"] = "interrupted"
            manifest["counts"] = ["cases": ["pass": 40, "fail": 0, "error": 0, "blocked": 0, "skipped": 0],
                                  "steps": ["pass": 160, "fail": 0, "error": 0, "blocked": 0, "skipped": 0]]
        }
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("inconsistent  run.json counts steps as 160 pass, the evidence holds 153 pass"), "\(result.stdout)")
        #expect(result.stdout.contains("inconsistent  run.json counts cases as 40 pass, the evidence holds 34 pass"), "\(result.stdout)")
    }

    @Test("Evidence edited and re-hashed by hand does not verify: a flipped verdict, a dropped record, a repeated one, and counts that disagree", arguments: [
        ("flip", "recorded fail, but what was observed is what was expected"),
        ("drop", "1 record(s) are missing"),
        ("repeat", "records are repeated or out of order"),
        ("seq-max", "seq 9223372036854775807 after seq 4"),
        ("expectation", "the record's expectation is not the matrix's"),
        ("step", "has steps 0 to 2, not 99"),
        ("outcome", "the record's action is not the matrix's step"),
        ("account", "the record's account is someone-else"),
        ("blocked", "recorded blocked, but no earlier step of the case failed or errored"),
        ("order", "step 2 follows step 0 of its case"),
        ("fault", "the record's run, environment, build, device, OS or app fault is not run.json's"),
        // A step the embedded environment performed, relabelled skipped to hide what it observed.
        ("skipped", "seq 5 (fresh-purchase/plus-monthly step 1): recorded skipped, but local can perform this step on clock real"),
        ("skipped-unnamed", "seq 5 (fresh-purchase/plus-monthly step 1): recorded skipped, but local skips a step only for the billingRetry limit"),
        ("skipped", "seq 6 (fresh-purchase/plus-monthly step 2): recorded pass after a skipped step of its case, which skips the rest of the case"),
        ("flip", "seq 6 (fresh-purchase/plus-monthly step 2): recorded pass after a failed or errored step of its case"),
        ("clock", "seq 5 (fresh-purchase/plus-monthly step 1): the record's clock is testflight, the run's real"),
        ("kind", "seq 5 (fresh-purchase/plus-monthly step 1): the record's kind is refund, the matrix's fresh-purchase"),
        ("not-observed", "seq 5 (fresh-purchase/plus-monthly step 1): the record names access, result as not observed, which local always observes"),
        ("step-max", "seq 6 (fresh-purchase/plus-monthly step 2): step 2 follows step 9223372036854775807 of its case"),
    ])
    func inconsistentEvidence(edit: String, finding: String) async throws {
        let release = try await ReleaseRun.make()
        defer { release.remove() }
        let evidence = release.run.appendingPathComponent("evidence.jsonl")
        var lines = try JSONLines.read(evidence)
        switch edit {
        case "flip": lines[4] = lines[4].replacingOccurrences(of: #""verdict":"pass""#, with: #""verdict":"fail""#)
        case "drop": lines.remove(at: 4)
        case "repeat": lines.insert(lines[4], at: 5)
        case "order": lines.swapAt(4, 5)
        default:
            var record = try #require(try JSONSerialization.jsonObject(with: Data(lines[4].utf8)) as? [String: Any])
            switch edit {
            case "seq-max": record["seq"] = Int.max
            case "expectation": record["expected"] = ["access": ["pro", "plus"]]
            case "outcome":
                var action = try #require(record["action"] as? [String: Any])
                action["outcome"] = "userCancelled"
                record["action"] = action
            case "account":
                var account = try #require(record["account"] as? [String: Any])
                account["alias"] = "someone-else"
                record["account"] = account
            case "blocked": record["verdict"] = "blocked"
            case "skipped", "skipped-unnamed":
                record["verdict"] = "skipped"
                record["reason"] = "environment limit: TestFlight purchases cannot fail to renew"
                record.removeValue(forKey: "observed")
                if edit == "skipped" { record["environmentLimit"] = "billingRetry" }
            case "clock": record["clock"] = "testflight"
            case "kind": record["kind"] = "refund"
            case "step-max": record["step"] = Int.max
            case "not-observed":
                // A failure hidden by saying its values were not observed: the judge skips what is not observed.
                var observed = try #require(record["observed"] as? [String: Any])
                observed["notObserved"] = ["access", "result"]
                record["observed"] = observed
            case "fault": record["appFault"] = "pendingUnlocks"
            default: record["step"] = 99
            }
            lines[4] = String(decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
        }
        try Tamper.rewrite(evidence, lines.joined(separator: "\n") + "\n", rehashIn: release.run)
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1)
        #expect(result.stdout.contains(finding), "\(result.stdout)")
        if ["flip", "drop", "repeat", "blocked", "skipped"].contains(edit) {
            #expect(result.stdout.contains("inconsistent  run.json counts steps as 153 pass, the evidence holds"), "\(result.stdout)")
        }
        #expect(result.stderr.contains("the evidence is inconsistent"))
        #expect(!result.stdout.contains("ALTERED"))
    }
}

/// Changes of one byte for tamper tests.
enum Tamper {
    /// Renders each report of a run again from its run.json and evidence, as `matrix report --out FILE --force`
    /// does, and records its new SHA-256 in run.json.
    static func renderReportsAgain(in run: URL) async throws {
        for (format, name) in [("junit", "junit.xml"), ("markdown", "summary.md"), ("html", "report.html")] {
            let url = run.appendingPathComponent(name)
            // To a file outside the run (report refuses one inside): `report` writes standard output itself,
            // which an in-process run does not capture.
            let outside = run.deletingLastPathComponent().appendingPathComponent("rendered-\(name)")
            defer { try? FileManager.default.removeItem(at: outside) }
            let rendered = try await CapturedRun.run(["report", run.path, "--format", format, "--out", outside.path, "--force"])
            try #require(rendered.status == 0, "\(rendered.stderr)")
            try rewrite(url, try String(contentsOf: outside, encoding: .utf8), rehashIn: run)
        }
    }

    /// Replaces a run file and records its new SHA-256 in run.json, as someone editing evidence by hand would.
    static func rewrite(_ url: URL, _ text: String, rehashIn run: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
        let manifestURL = run.appendingPathComponent("run.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        var files = try #require(manifest["files"] as? [String: String])
        files[url.lastPathComponent] = SHA256.hexHash(Data(text.utf8))
        manifest["files"] = files
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
    }

    /// Changes one base64url character of the first JWS signature in an evidence file, keeping it valid JSON.
    static func flipSignatureByte(in url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let marker = Array(#""jws":""#.utf8)
        guard let start = (0 ..< bytes.count - marker.count).first(where: { Array(bytes[$0 ..< $0 + marker.count]) == marker }),
              let end = bytes[(start + marker.count)...].firstIndex(of: UInt8(ascii: "\"")) else {
            throw ReleaseRun.ReleaseRunError(message: "no JWS in \(url.path)")
        }
        let index = end - 10
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try Data(bytes).write(to: url)
    }
}
