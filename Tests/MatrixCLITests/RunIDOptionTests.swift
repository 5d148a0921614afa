import Foundation
import Testing
@testable import TestSupport

/// `matrix run --run-id ID` names the run; two runs never share a directory.
@Suite("matrix run --run-id")
struct RunIDOptionTests {
    /// The release matrix cut to its first case, beside a copy of its catalog.
    static func smallMatrix(in directory: URL) throws -> URL {
        let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
        var matrix = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: release)) as? [String: Any])
        matrix["cases"] = Array(try #require(matrix["cases"] as? [Any]).prefix(1))
        let url = directory.appendingPathComponent("small.json")
        try JSONSerialization.data(withJSONObject: matrix).write(to: url)
        return url
    }

    @Test("--run-id names the directory, run.json and every record; the same id again is refused (74), the first run untouched")
    func named() async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let matrix = try Self.smallMatrix(in: directory)
        let out = directory.appendingPathComponent("out")
        let first = try await CommandHarness.run(["run", matrix.path, "--out", out.path, "--run-id", "nightly-7", "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let run = out.appendingPathComponent("local/unspecified/nightly-7")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("run.json"))) as? [String: Any])
        #expect(manifest["runId"] as? String == "nightly-7")
        let records = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(!records.isEmpty)
        for line in records {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(record["run"] as? String == "nightly-7")
        }
        let before = try Data(contentsOf: run.appendingPathComponent("evidence.jsonl"))

        let again = try await CommandHarness.run(["run", matrix.path, "--out", out.path, "--run-id", "nightly-7", "--quiet"])
        #expect(again.status == 74)
        #expect(again.stderr.contains("already exists and evidence is never overwritten"), "\(again.stderr)")
        #expect(try Data(contentsOf: run.appendingPathComponent("evidence.jsonl")) == before)
    }

    @Test("an id that cannot name a directory, or could spoof a terminal, is a usage error (64)", arguments: ["../x", "", ".x", "a b", "\u{1B}[2K"])
    func invalid(id: String) async throws {
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let matrix = try Self.smallMatrix(in: directory)
        let result = try await CommandHarness.run(["run", matrix.path, "--out", directory.appendingPathComponent("out").path, "--run-id", id])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--run-id must be 1 to 64 letters"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out").path))
    }

    @Test("--resume takes the run id from run.json: --run-id with it is a usage error")
    func resume() async throws {
        let result = try await CommandHarness.run(["run", "--resume", "/nonexistent", "--run-id", "x"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("drop --run-id"), "\(result.stderr)")
    }
}
