import Foundation
import Testing
import MatrixModel
import TestSupport

/// The built binary with `--env exec`: the embedded environment through the driver protocol, and a driver in
/// another language.
@Suite("End to end: matrix run --env exec")
struct ExecEndToEndTests {
    let matrices = Fixtures.packageDirectory.appendingPathComponent("matrices")

    /// The evidence of a run as canonical JSON lines: the run id, environment name and wall-clock times
    /// removed, and every compact JWS (ECDSA signatures are randomized) replaced by its decoded payload.
    func normalisedEvidence(_ run: URL) throws -> [String] {
        let text = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            var record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in ["run", "environment", "wallStart", "wallEnd"] {
                #expect(record[key] != nil, "records have \(key)")
                record[key] = nil
            }
            let canonical = try JSONSerialization.data(withJSONObject: decodingJWS(record), options: [.sortedKeys])
            return String(decoding: canonical, as: UTF8.self)
        }
    }

    /// `value` with every string that is a compact JWS replaced by `{"payload": decoded}`, recursively.
    func decodingJWS(_ value: Any) -> Any {
        switch value {
        case let object as [String: Any]: return object.mapValues(decodingJWS)
        case let array as [Any]: return array.map(decodingJWS)
        case let text as String:
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, text.hasPrefix("eyJ") else { return text }
            var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), let payload = try? JSONSerialization.jsonObject(with: data) else { return text }
            return ["payload": decodingJWS(payload)]
        default: return value
        }
    }

    @Test("release.json through `matrix driver local` leaves the same evidence as --env local, apart from run, environment and times")
    func localDriverMatchesLocal() async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let matrix = matrices.appendingPathComponent("release.json").path
        let local = try await MatrixBinary.run(["run", matrix, "--out", out.appendingPathComponent("a").path, "--build", "1.4 (212)"])
        #expect(local.status == 0, "stderr: \(local.stderr)")
        let driver = "'\(MatrixBinary.url.path)' driver local"
        // A step timeout no loaded machine reaches: it is not what this test is about.
        let exec = try await MatrixBinary.run(["run", matrix, "--out", out.appendingPathComponent("b").path, "--build", "1.4 (212)",
                                               "--env", "exec", "--driver", driver, "--step-timeout", "120"])
        #expect(exec.status == 0, "stderr: \(exec.stderr)")
        let localRun = try #require(MatrixBinary.runDirectories(under: out.appendingPathComponent("a")).first)
        let execRun = try #require(MatrixBinary.runDirectories(under: out.appendingPathComponent("b")).first)
        #expect(execRun.pathComponents.suffix(3).prefix(2) == ["local-driver", "1.4-212"])

        let expected = try normalisedEvidence(localRun)
        let actual = try normalisedEvidence(execRun)
        #expect(expected.count > 50)
        #expect(expected.contains { $0.contains(#""payload":{"#) }, "signed data was compared by payload")
        #expect(actual.count == expected.count)
        for (index, (want, got)) in zip(expected, actual).enumerated() where want != got {
            Issue.record("record \(index + 1) differs:\n local: \(want.prefix(600))\n exec:  \(got.prefix(600))")
            break
        }
        let records = try String(contentsOf: execRun.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
        #expect(records.allSatisfy { $0.environment == "local-driver" && $0.device == "embedded simulator" })
    }

    @Test("`matrix driver local` takes --app-fault more than once, as `matrix run` does: the verdicts of --env local with both faults")
    func driverTakesSeveralFaults() async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let matrix = matrices.appendingPathComponent("release.json").path
        let faults = ["--app-fault", "restoreReportsSuccess", "--app-fault", "pendingUnlocks"]
        let local = try await MatrixBinary.run(["run", matrix, "--out", out.appendingPathComponent("a").path, "--quiet"] + faults)
        #expect(local.status == 1, "stderr: \(local.stderr)")
        let driver = "'\(MatrixBinary.url.path)' driver local " + faults.joined(separator: " ")
        let exec = try await MatrixBinary.run(["run", matrix, "--out", out.appendingPathComponent("b").path, "--quiet",
                                               "--env", "exec", "--driver", driver, "--step-timeout", "120"])
        #expect(exec.status == 1, "stderr: \(exec.stderr)")
        func verdicts(_ parent: String) throws -> [String] {
            let run = try #require(MatrixBinary.runDirectories(under: out.appendingPathComponent(parent)).first)
            return try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n").map {
                let record = try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8))
                return "\(record.case) #\(record.step) \(record.verdict.rawValue)"
            }
        }
        let expected = try verdicts("a")
        #expect(expected.contains { $0.hasPrefix("restore/") && $0.hasSuffix(" fail") }, "restoreReportsSuccess fails a restore case")
        #expect(expected.contains { $0.hasPrefix("pending/") && $0.hasSuffix(" fail") }, "pendingUnlocks fails a pending case")
        #expect(try verdicts("b") == expected)
    }

    static let python3Available = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }

    @Test("the Python toy driver: the app that ignores refunds fails the refund case with access still granted",
          .enabled(if: python3Available, "needs python3"))
    func pythonToyDriver() async throws {
        let dir = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: matrices.appendingPathComponent("Products.storekit"), to: dir.appendingPathComponent("Products.storekit"))
        let matrix = """
            {"schemaVersion": 1, "name": "toy", "app": {"bundleId": "com.example.storekitmatrix"}, "catalog": "Products.storekit",
             "tiers": {"pro": ["com.example.storekitmatrix.pro"], "plus": ["com.example.storekitmatrix.plus.monthly"]},
             "accounts": {"fresh": {}, "owner": {"owns": ["com.example.storekitmatrix.pro"]}},
             "cases": [
              {"id": "fresh-purchase/pro", "kind": "fresh-purchase", "account": "fresh", "steps": [
                {"action": "launch", "expect": {"access": []}},
                {"action": "purchase", "product": "com.example.storekitmatrix.pro", "expect": {"result": "success", "access": ["pro"]}},
                {"action": "relaunch", "expect": {"access": ["pro"], "entitlements": ["com.example.storekitmatrix.pro"]}}]},
              {"id": "refund/pro", "kind": "refund", "account": "owner", "steps": [
                {"action": "launch", "expect": {"access": ["pro"]}},
                {"action": "refund", "product": "com.example.storekitmatrix.pro", "expect": {"access": [], "notifications": ["REFUND"]}},
                {"action": "relaunch", "expect": {"access": []}}]},
              {"id": "pending/plus", "kind": "pending", "account": "fresh", "steps": [
                {"action": "launch", "expect": {"access": []}},
                {"action": "purchase", "product": "com.example.storekitmatrix.plus.monthly", "outcome": "pending", "expect": {"result": "pending"}},
                {"action": "approveAskToBuy", "product": "com.example.storekitmatrix.plus.monthly", "expect": {"access": ["plus"]}},
                {"action": "observe", "expect": {"access": []}}]},
              {"id": "renewal/plus", "kind": "renewal", "account": "fresh", "steps": [
                {"action": "renew", "product": "com.example.storekitmatrix.plus.monthly", "expect": {"renewals": 1}}]}
             ]}
            """
        try matrix.write(to: dir.appendingPathComponent("toy.json"), atomically: true, encoding: .utf8)
        let driver = Fixtures.packageDirectory.appendingPathComponent("examples/drivers/python/toy_driver.py").path
        // A step timeout no loaded machine reaches (10 s was, by Python starting with both cores busy).
        let result = try await MatrixBinary.run(["run", "toy.json", "--out", "out", "--env", "exec", "--driver", "python3 '\(driver)'",
                                                 "--step-timeout", "120"], in: dir)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("out")).first)
        #expect(run.pathComponents.suffix(3).prefix(2) == ["toy-app", "toy-1.0-1"])
        let records = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
        #expect(records.map(\.verdict) == [.pass, .pass, .pass, .pass, .fail, .blocked, .pass, .skipped, .skipped, .skipped, .skipped])
        let refund = try #require(records.first { $0.case == "refund/pro" && $0.step == 1 })
        #expect(refund.observed?.access == ["pro"])
        #expect(refund.observed?.entitlements == [])
        #expect(refund.observed?.notifications == ["REFUND"])
        #expect(refund.reason == #"access: expected [], observed ["pro"]"#)
        #expect(records[7].reason == "the toy-app driver does not support purchase: the toy store cannot produce a pending purchase")
        #expect(records[8].reason == "step 1 (purchase) was skipped: the toy-app driver does not support purchase: the toy store cannot produce a pending purchase")
        #expect(records[10].reason == "the toy-app driver does not support renew")
        #expect(records.allSatisfy { $0.device == "toy device" && $0.os == "toy OS 1.0" && $0.build == "toy 1.0 (1)" })
        #expect(result.stderr.contains("FAIL    refund/pro"))
    }
}
