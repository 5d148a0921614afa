import Foundation
import Testing

/// `matrix validate FILE…`: every diagnostic of every file, `--strict`, `--format json`, exit 0, 65 or 66.
@Suite("matrix validate")
struct ValidateCommandTests {
    /// A matrix over an inline catalog of one product, with `caseJSON` as its only case and `extra` top-level members.
    func write(_ name: String, in directory: URL, caseJSON: String, extra: String = "") throws -> String {
        let text = """
            {
              "schemaVersion": 1,\(extra)
              "app": {"bundleId": "com.example.storekitmatrix"},
              "catalog": {"products": [{"productID": "com.example.storekitmatrix.pro", "type": "NonConsumable"}]},
              "tiers": {"pro": ["com.example.storekitmatrix.pro"]},
              "accounts": {"a": {}},
              "cases": [
                \(caseJSON)
              ]
            }
            """
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    let good = #"{"id": "x", "kind": "fresh-purchase", "account": "a", "steps": [{"action": "purchase", "product": "com.example.storekitmatrix.pro", "expect": {"access": ["pro"]}}]}"#

    @Test("a warning passes without --strict (exit 0) and fails with it (exit 65), reported as an error")
    func strict() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try write("warn.json", in: directory, caseJSON: good, extra: #"\#n  "colour": "blue","#)
        let lenient = try await CommandHarness.run(["validate", path])
        #expect(lenient.status == 0)
        #expect(lenient.stderr.contains("warn.json:3:3: warning: unknown key \"colour\""))
        #expect(lenient.stderr.contains("1 file checked: 0 errors, 1 warning"))
        let strict = try await CommandHarness.run(["validate", "--strict", path])
        #expect(strict.status == 65)
        #expect(strict.stderr.contains("warn.json:3:3: error: unknown key \"colour\""))
        #expect(strict.stderr.contains("1 file checked: 1 error, 0 warnings"))
    }

    @Test("--format json prints one row per diagnostic: file, line, column, pointer, code, severity, message")
    func json() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = #"{"id": "x", "kind": "fresh-purchase", "account": "b", "steps": [{"action": "purchase", "product": "com.example.storekitmatrix.prp"}]}"#
        let path = try write("bad.json", in: directory, caseJSON: bad)
        let result = try await CommandHarness.run(["validate", "--format", "json", "--strict", path])
        #expect(result.status == 65)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 2)
        let product = try #require(rows.first { $0["code"] as? String == "MX013" })
        #expect(product["file"] as? String == path)
        #expect(product["line"] as? Int == 8)
        #expect(product["column"] as? Int == 103)
        #expect(product["pointer"] as? String == "/cases/0/steps/0/product")
        #expect(product["severity"] as? String == "error")
        #expect(product["message"] as? String == #"unknown product "com.example.storekitmatrix.prp""#)
        #expect(product["hint"] as? String == #"did you mean "com.example.storekitmatrix.pro"?"#)
        let account = try #require(rows.first { $0["code"] as? String == "MX015" })
        #expect(account["pointer"] as? String == "/cases/0/account")
        #expect(result.stderr.isEmpty)
    }

    @Test("--format json on a valid matrix prints an empty array on one line and exits 0")
    func jsonClean() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try write("good.json", in: directory, caseJSON: good)
        let result = try await CommandHarness.run(["validate", "--format", "json", path])
        #expect(result.status == 0)
        #expect(result.stdout == "[]\n")
    }

    @Test("faults lists every fault with its summary, shows help, and refuses arguments; score names what is missing")
    func faultsAndScoreArguments() async throws {
        let listed = try await CommandHarness.run(["faults"])
        #expect(listed.status == 0)
        #expect(listed.stdout.split(separator: "\n").count > 5)
        let help = try await CommandHarness.run(["faults", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("USAGE: matrix faults"))
        let extra = try await CommandHarness.run(["faults", "extra"])
        #expect(extra.status == 64)
        #expect(extra.stderr.contains("faults takes no arguments, got \"extra\""))
        let score = try await CommandHarness.run(["score"])
        #expect(score.status == 64 && score.stderr.contains("missing MATRIX (the matrix file to score)"))
    }

    @Test("several files: each is checked; an unreadable one exits 66 and the others are still reported")
    func severalFiles() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let valid = try write("ok.json", in: directory, caseJSON: good)
        let invalid = try write("bad.json", in: directory, caseJSON: #"{"id": "x", "kind": "fresh-purchase", "account": "a", "steps": []}"#)
        let both = try await CommandHarness.run(["validate", valid, invalid])
        #expect(both.status == 65)
        #expect(both.stderr.contains("bad.json:8:68: error: case \"x\" has no steps"))
        #expect(both.stderr.contains("2 files checked: 1 error, 0 warnings"))
        let missing = try await CommandHarness.run(["validate", directory.appendingPathComponent("nope.json").path, invalid])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("error: cannot read matrix"))
        #expect(missing.stderr.contains("has no steps"))
        #expect(missing.stderr.contains("1 file checked: 1 error, 0 warnings; 1 could not be read"))
        let clean = try await CommandHarness.run(["validate", valid])
        #expect(clean.status == 0 && clean.stdout.isEmpty)

        // With --format json the unreadable file is a row of its own (MX006), beside the other file's rows.
        let nope = directory.appendingPathComponent("nope.json").path
        let json = try await CommandHarness.run(["validate", "--format", "json", nope, invalid])
        #expect(json.status == 66)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let unreadable = try #require(rows.first { $0["code"] as? String == "MX006" })
        #expect(unreadable["file"] as? String == nope)
        #expect(unreadable["severity"] as? String == "error")
        #expect((unreadable["message"] as? String)?.contains("cannot read matrix") == true)
        #expect(rows.contains { $0["code"] as? String == "MX023" && $0["file"] as? String == invalid })
    }
}

/// `matrix validate` says what a matrix leaves untested; `--strict` makes it fail.
@Suite("matrix validate: coverage")
struct ValidateCoverageTests {
    @Test("an untested product and an unexpected tier are warnings (exit 0), errors with --strict (65)")
    func coverage() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("m.json").path
        try """
            {
              "schemaVersion": 1, "app": {"bundleId": "com.example.storekitmatrix"},
              "catalog": {"products": [{"productID": "com.example.storekitmatrix.pro", "type": "NonConsumable"},
                                       {"productID": "com.example.storekitmatrix.pro2", "type": "NonConsumable"}]},
              "tiers": {"pro": ["com.example.storekitmatrix.pro"]},
              "accounts": {"a": {}},
              "cases": [{"id": "x", "kind": "fresh-purchase", "account": "a", "steps": [{"action": "launch", "expect": {"access": []}}]}]
            }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let lenient = try await CommandHarness.run(["validate", path])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains(#"m.json:3:14: warning: catalog product "com.example.storekitmatrix.pro2" (nonConsumable) is in no tier and no case"#), "\(lenient.stderr)")
        #expect(lenient.stderr.contains(#"m.json:5:20: warning: no case expects tier "pro""#), "\(lenient.stderr)")
        #expect(lenient.stderr.contains("1 file checked: 0 errors, 2 warnings"))
        let strict = try await CommandHarness.run(["validate", "--strict", path])
        #expect(strict.status == 65)
    }
}
