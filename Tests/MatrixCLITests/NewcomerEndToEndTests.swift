import Foundation
import Testing
import TestSupport

/// docs/matrix-init.md's first commands, run with the built binary in an empty folder.
@Suite("End to end: from a .storekit file")
struct NewcomerEndToEndTests {
    @Test("init, run, score and plan: a passing, fully scoring matrix and a Sandbox plan from only Products.storekit")
    func threeCommands() async throws {
        let directory = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit"),
                                         to: directory.appendingPathComponent("Products.storekit"))

        let initResult = try await MatrixBinary.run(["init", "--catalog", "Products.storekit", "--out", "matrices/release.json"], in: directory)
        #expect(initResult.status == 0, "\(initResult.stderr)")
        #expect(initResult.stderr.contains("wrote matrices/release.json: 41 cases"))
        #expect(initResult.stderr.contains("next: matrix run matrices/release.json"))

        let run = try await MatrixBinary.run(["run", "matrices/release.json", "--out", "reports"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("41 cases: 41 pass"))

        let score = try await MatrixBinary.run(["score", "matrices/release.json"], in: directory)
        #expect(score.status == 0)
        #expect(score.stdout.contains("score: 24/24 faults caught (100 %)"))

        let plan = try await MatrixBinary.run(["plan", "matrices/release.json", "--env", "sandbox", "--accounts", "3"], in: directory)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.hasPrefix("plan for matrices/release.json in Sandbox\n"))
        #expect(plan.stdout.contains("over 3 accounts in parallel: "))
    }
}
