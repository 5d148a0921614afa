import Foundation
import Testing
import MatrixModel
import TestSupport

/// `matrix verify RUN_DIR` summarises; `--verbose` lists every file and record.
@Suite("matrix verify summary")
struct VerifySummaryTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("matrix verify RUN_DIR prints a summary; --verbose prints every file and record")
    func verifySummary() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-verify")
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try await MatrixBinary.run(["run", release.path, "--kind", "refund", "--out", dir.path, "--quiet"])
        #expect(run.status == 0)
        let runDir = try #require(MatrixBinary.runDirectories(under: dir).first)
        let summary = try await MatrixBinary.run(["verify", runDir.path])
        #expect(summary.status == 0 && summary.stdout.isEmpty, "\(summary.stdout)")
        #expect(summary.stderr.contains("verified: run directory"))
        let verbose = try await MatrixBinary.run(["verify", runDir.path, "--verbose"])
        let records = try String(contentsOf: runDir.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n").count
        #expect(verbose.stdout.split(separator: "\n").filter { $0.hasPrefix("record ") }.count == records, "\(verbose.stdout)")
    }
}
