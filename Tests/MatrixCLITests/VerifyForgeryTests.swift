@testable import EvidenceStore
import Foundation
@testable import MatrixCLI
@testable import SignedData
import Signing
@testable import TestSupport
import Testing

/// Data that cannot be verified is an error unless the person verifying asks for Xcode or LocalTesting data
/// with --environment, as only the caller of Apple's SignedDataVerifier chooses `.xcode` or `.localTesting`.
@Suite("matrix verify: the caller, never the payload, decides what is checked")
struct VerifyForgeryTests {
    static let bundleId = "com.example.storekitmatrix"

    /// What anyone can write: `alg` none, no signature, an `x5c` that is no certificate.
    static func forged(_ payload: [String: Any]) throws -> String {
        let header = Base64URL.encode(Data(#"{"alg":"none","x5c":["garbage"]}"#.utf8))
        return header + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) + "."
    }

    static func forgedTransaction(environment: String) throws -> String {
        try forged(["bundleId": bundleId, "environment": environment, "signedDate": 1_767_268_800_000, "price": 0, "currency": "USD",
                    "transactionId": "2000000000000001", "originalTransactionId": "2000000000000001", "productId": "com.example.storekitmatrix.pro",
                    "purchaseDate": 1_767_268_800_000, "quantity": 1, "inAppOwnershipType": "PURCHASED"])
    }

    @Test("A forged JWS naming Xcode or LocalTesting does not verify as a lone JWS, with or without --bundle-id",
          arguments: ["Xcode", "LocalTesting"])
    func loneJWS(environment: String) async throws {
        let jws = try Self.forgedTransaction(environment: environment)
        for options in [[], ["--bundle-id", Self.bundleId], ["--root", "simulator", "--bundle-id", Self.bundleId]] {
            let result = try await CapturedRun.run(["verify", jws] + options)
            #expect(result.status == 1, "\(options): \(result.stderr)")
            #expect(result.stdout.isEmpty, "the payload of data that does not verify is not printed")
            #expect(result.stderr.contains("error: transaction from the command line does not verify: invalid JWT format [INVALID_JWT_FORMAT]"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("hint: the payload names environment \(environment), whose data Apple's verifiers decode without a "
                                           + "signature check only when their caller asks for \(environment); pass --environment \(environment)"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("decoded:"))
        }
        let json = try await CapturedRun.run(["verify", jws, "--format", "json"])
        #expect(json.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["status"] as? String == "failed")
        #expect(document["payload"] == nil)
        #expect((document["hint"] as? String)?.hasSuffix("pass --environment \(environment) to accept it unsigned") == true, "\(json.stdout)")
        // Asked for by the person verifying, as Apple's verifier created for that environment.
        let asked = try await CapturedRun.run(["verify", jws, "--environment", environment, "--bundle-id", Self.bundleId])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stderr.contains("decoded: transaction from the command line; signature NOT checked (\(environment) data, accepted unsigned "
                                      + "by --environment \(environment))"), "\(asked.stderr)")
    }

    @Test("--batch fails a forged Xcode line, and decodes it only under --environment Xcode")
    func batch() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("jws.txt")
        try (try Self.forgedTransaction(environment: "Xcode") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["verify", "--batch", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("line 1: transaction: invalid JWT format [INVALID_JWT_FORMAT]"), "\(result.stdout)")
        #expect(result.stderr.contains("1 JWS from \(file.path): 0 verified, 1 failed"), "\(result.stderr)")
        #expect(result.stderr.contains("note: hint: the payload names environment Xcode"), "\(result.stderr)")
        let asked = try await CapturedRun.run(["verify", "--batch", file.path, "--environment", "Xcode"])
        #expect(asked.status == 0)
        #expect(asked.stderr.contains("0 verified, 1 decoded without signature check"), "\(asked.stderr)")
    }

    /// Replaces the first transaction of the record for seq 2 (a purchase of Pro) with `jws`, re-hashing run.json.
    static func replaceFirstTransaction(in run: URL, with jws: String) throws {
        let evidence = run.appendingPathComponent("evidence.jsonl")
        var lines = try String(contentsOf: evidence, encoding: .utf8).split(separator: "\n").map(String.init)
        var record = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        var observed = try #require(record["observed"] as? [String: Any])
        var items = try #require(observed["signedData"] as? [[String: Any]])
        let index = try #require(items.firstIndex { $0["kind"] as? String == "transaction" })
        items[index]["jws"] = jws
        observed["signedData"] = items
        record["observed"] = observed
        lines[1] = String(decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        try Tamper.rewrite(evidence, lines.joined(separator: "\n") + "\n", rehashIn: run)
    }

    @Test("A forged price-0 Xcode transaction in a Sandbox run fails its verification; the run requires the environment it recorded")
    func forgedItemInRun() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.replaceFirstTransaction(in: release.run, with: try Self.forgedTransaction(environment: "Xcode"))
        for options in [[], ["--environment", "Sandbox"]] {
            let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"] + options)
            #expect(result.status == 1, "\(options): \(result.stderr)")
            #expect(result.stdout.contains("record    2  FAIL  fresh-purchase/pro #1 purchase: transaction 1 of 3: invalid JWT format [INVALID_JWT_FORMAT]"),
                    "\(result.stdout)")
            #expect(result.stderr.contains("1 signed item in 1 record failed verification"), "\(result.stderr)")
            #expect(!result.stderr.contains("decoded without signature check"))
            // The run names its environment: no hint to accept Xcode data.
            #expect(!result.stderr.contains("hint: the payload names environment"), "\(result.stderr)")
        }
        let plain = try await CapturedRun.run(["verify", release.run.path])
        #expect(plain.stderr.contains("note: environment Sandbox as recorded in run.json (signedEnvironment)"), "\(plain.stderr)")
        // Asking for Xcode data accepts the forged item, but not the run's Sandbox data.
        let xcode = try await CapturedRun.run(["verify", release.run.path, "--quiet", "--environment", "Xcode"])
        #expect(xcode.status == 1)
        #expect(xcode.stderr.contains("--environment Xcode was given, but the run signed its data as Sandbox as recorded in run.json (signedEnvironment)"), "\(xcode.stderr)")
        #expect(xcode.stdout.contains("invalid environment [INVALID_ENVIRONMENT]"))
    }

    @Test("A run whose records carry another environment than run.json records fails, and an unsigned environment there turns no check off",
          arguments: ["Production", "Xcode"])
    func recordedEnvironmentIsRequired(recorded: String) async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let manifestURL = release.run.appendingPathComponent("run.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        #expect(manifest["signedEnvironment"] as? String == "Sandbox")
        manifest["signedEnvironment"] = recorded
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("invalid environment [INVALID_ENVIRONMENT]: The payload's environment is \"Sandbox\" but this verifier is for \"\(recorded)\""),
                "\(result.stdout)")
        if recorded == "Xcode" {
            // Simulator-signed Xcode data still has its signature checked: the forged item fails, not "decoded".
            try Self.replaceFirstTransaction(in: release.run, with: try Self.forgedTransaction(environment: "Xcode"))
            let forged = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
            #expect(forged.status == 1)
            #expect(forged.stdout.contains("purchase: transaction 1 of 2: invalid JWT format [INVALID_JWT_FORMAT]"), "\(forged.stdout)")
            #expect(!forged.stderr.contains("decoded without signature check"))
        }
    }
}
