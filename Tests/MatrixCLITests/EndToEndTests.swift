import Foundation
import Testing
import MatrixModel
import TestSupport

/// The built `matrix` binary on the shipped release matrix: what a user runs first.
@Suite("End to end: matrix run")
struct EndToEndTests {
    let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")

    /// The number of steps in a matrix file, counted from its JSON independently of the loader.
    func stepCount(_ url: URL) throws -> Int {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let cases = try #require(object["cases"] as? [[String: Any]])
        return cases.reduce(0) { $0 + (($1["steps"] as? [Any])?.count ?? 0) }
    }

    func records(_ run: URL) throws -> [EvidenceRecord] {
        let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
    }

    @Test("matrices/release.json passes on the local environment and leaves complete evidence, one record per step")
    func releaseMatrixPasses() async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try await MatrixBinary.run(["run", matrices.appendingPathComponent("release.json").path, "--out", out.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let runs = MatrixBinary.runDirectories(under: out)
        try #require(runs.count == 1)
        let run = runs[0]
        #expect(run.pathComponents.suffix(3).prefix(2) == ["local", "unspecified"])
        let records = try records(run)
        #expect(records.count == (try stepCount(matrices.appendingPathComponent("release.json"))))
        // Each line is exactly what JSONEncoder writes for its record (the writer encodes records by hand).
        let lines = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n")
        for (line, record) in zip(lines, records) {
            #expect(String(line) == String(decoding: try ReferenceEncoder.encode(record), as: UTF8.self))
        }
        #expect(records.allSatisfy { $0.verdict == .pass })
        #expect(records.map(\.seq) == Array(1...records.count))
        #expect(Set(records.map(\.run)) == [run.lastPathComponent])
        #expect(records.allSatisfy { $0.environment == "local" && $0.build == "unspecified (local run)" })
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("run.json"))) as? [String: Any])
        #expect(manifest["status"] as? String == "complete")
        let files = try #require(manifest["files"] as? [String: String])
        #expect(Set(files.keys) == ["evidence.jsonl", "junit.xml", "summary.md", "report.html"])
        let caseCount = Set(records.map(\.case)).count
        #expect(result.stderr.contains("\(caseCount) cases: \(caseCount) pass"))
        #expect(result.stderr.contains("evidence: "))
    }

    @Test("one wrong expectation: exit 1, and the record shows expected vs observed and the reason")
    func wrongExpectationFails() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: matrices.appendingPathComponent("Products.storekit"), to: dir.appendingPathComponent("Products.storekit"))
        var text = try String(contentsOf: matrices.appendingPathComponent("release.json"), encoding: .utf8)
        // refund/pro, step 2: the refund must lock Pro; claim it keeps access.
        let original = #"{"action": "refund", "product": "com.example.storekitmatrix.pro", "expect": {"access": []"#
        try #require(text.contains(original))
        text = text.replacingOccurrences(of: original, with: #"{"action": "refund", "product": "com.example.storekitmatrix.pro", "expect": {"access": ["pro"]"#)
        try text.write(to: dir.appendingPathComponent("wrong.json"), atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", "wrong.json", "--out", "out"], in: dir)
        #expect(result.status == 1)
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        let failing = try records(run).filter { $0.verdict == .fail }
        try #require(failing.count == 1)
        #expect(failing[0].case == "refund/pro" && failing[0].step == 2)
        #expect(failing[0].expected?.access == ["pro"])
        #expect(failing[0].observed?.access == [])
        #expect(failing[0].reason?.contains(#"access: expected ["pro"], observed []"#) == true)
        #expect(try records(run).filter { $0.case == "refund/pro" && $0.step == 3 }.map(\.verdict) == [.blocked])
        #expect(result.stderr.contains("FAIL") && result.stderr.contains("refund/pro"))
    }

    @Test("a malformed matrix: exit 65, a located message on stderr, no run directory")
    func malformedMatrixIsRejected() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: matrices.appendingPathComponent("Products.storekit"), to: dir.appendingPathComponent("Products.storekit"))
        let matrix = """
            {
              "schemaVersion": 1,
              "app": {"bundleId": "com.example.storekitmatrix"},
              "catalog": "Products.storekit",
              "tiers": {"pro": ["com.example.storekitmatrix.pro"]},
              "accounts": {"a": {}},
              "cases": [
                {"id": "x", "kind": "fresh-purchase", "account": "a",
                 "steps": [{"action": "purchase", "product": "com.example.storekitmatrix.prp"}]}
              ]
            }
            """
        try matrix.write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let result = try await MatrixBinary.run(["run", "bad.json", "--out", "out"], in: dir)
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"bad.json:9:50: error: unknown product "com.example.storekitmatrix.prp" (at /cases/0/steps/0/product); did you mean "com.example.storekitmatrix.pro"? [MX013]"#),
                "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path))
    }

    @Test("a matrix file that cannot be read exits 66; an unknown option exits 64 with usage")
    func unreadableAndUsage() async throws {
        let missing = try await MatrixBinary.run(["run", "/nonexistent/release.json"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("error: cannot read matrix /nonexistent/release.json: no such file"))
        let usage = try await MatrixBinary.run(["run", "x.json", "--jbos", "2"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("unknown option --jbos; did you mean --jobs?"))
        let help = try await MatrixBinary.run(["run", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: matrix run MATRIX"))
    }
}

/// `matrix run --clock xcode:*` models StoreKit Testing in Xcode, which has no App Store server.
/// Apple: https://developer.apple.com/documentation/appstoreservernotifications/environment
@Suite("End to end: StoreKit Testing in Xcode's clock")
struct XcodeClockRunTests {
    @Test("without --signed-environment Xcode's clock signs as Xcode, sends no notifications, and warns that their expectations are not judged (environment)")
    func xcodeClock() async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let result = try await MatrixBinary.run(["run", release, "--clock", "xcode:1005", "--out", out.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("warning: "), "\(result.stderr)")
        #expect(result.stderr.contains("expect App Store Server Notifications, which StoreKit Testing in Xcode (--clock xcode:1005) never sends"))
        let run = try #require(MatrixBinary.runDirectories(under: out).first)
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("run.json"))) as? [String: Any])
        #expect(manifest["signedEnvironment"] as? String == "Xcode")
        #expect((manifest["warnings"] as? [String])?.contains { $0.contains("never sends") } == true)
        let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        let records = try text.split(separator: "\n").map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
        let observed = records.compactMap(\.observed)
        #expect(!observed.isEmpty && observed.allSatisfy { $0.notifications.isEmpty && $0.serverNotifications == false })
        #expect(observed.allSatisfy { $0.signedData.allSatisfy { $0.kind != "notification" } })
        // Data names the environment Xcode writes.
        let transaction = try #require(observed.lazy.flatMap(\.signedData).first { $0.kind == "transaction" })
        let payload = try #require(transaction.jws.split(separator: ".").dropFirst().first)
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let decoded = try #require(Data(base64Encoded: base64).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        #expect(decoded["environment"] as? String == "Xcode")
    }
}
