import Foundation
import Testing
import MatrixModel
import TestSupport

/// `--app-fault` given several times runs the reference app with every bug named.
@Suite("Several app faults")
struct SeveralFaultsTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("--app-fault is repeatable: the reference app runs with every bug named, and the evidence names them all")
    func severalFaults() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-faults")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await MatrixBinary.run(["run", release.path, "--app-fault", "pendingUnlocks", "--app-fault", "restoreReportsSuccess",
                                           "--kind", "pending", "--kind", "restore", "--out", dir.path, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir).first)
        let records = try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
        #expect(records.allSatisfy { $0.appFault == "pendingUnlocks,restoreReportsSuccess" })
        let failing = Set(records.filter { $0.verdict == .fail }.map(\.case))
        #expect(failing.contains("restore/nothing-to-restore"), "restoreReportsSuccess shows: \(failing)")
        #expect(failing.contains { $0.hasPrefix("pending/") }, "pendingUnlocks shows: \(failing)")
        let summary = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("pendingUnlocks, restoreReportsSuccess (the reference app ran with these known bugs)"))
        let twice = try await MatrixBinary.run(["run", release.path, "--app-fault", "pendingUnlok"])
        #expect(twice.status == 64 && twice.stderr.contains("did you mean pendingUnlocks?"), "\(twice.stderr)")
    }
}
