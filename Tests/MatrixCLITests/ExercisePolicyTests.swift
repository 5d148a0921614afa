import Foundation
import Testing
import MatrixModel
import TestSupport

/// A run that tests nothing is not green: the exit status and the summary say how much was performed.
@Suite("What a run exercised")
struct ExercisePolicyTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
    let nothing = Fixtures.packageDirectory.appendingPathComponent("Tests/ExecEnvironmentTests/Drivers/nothing.sh")

    @Test("a driver that supports no action skips every step: the run exits 1 and says no step was performed")
    func nothingPerformed() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-exercise")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await MatrixBinary.run(["run", release.path, "--env", "exec", "--driver", nothing.path, "--out", dir.path, "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("error: no step was performed"), "\(result.stderr)")
        #expect(result.stderr.contains("· no step performed · "), "the summary line says it too: \(result.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir).first)
        let summary = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("Exercised: no step performed: "))
        let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("<b>Exercised:</b> no step performed: "))
    }

    @Test("--fail-on-skip fails a run with a skipped step; --min-performed fails one that performed too little",
          arguments: [([String](), Int32(0)), (["--fail-on-skip"], Int32(1)), (["--min-performed", "99"], Int32(1)), (["--min-performed", "50"], Int32(0))])
    func policy(options: [String], status: Int32) async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-exercise")
        defer { try? FileManager.default.removeItem(at: dir) }
        // The local run of the release matrix on the testflight clock skips TestFlight's billing retry steps.
        let result = try await MatrixBinary.run(["run", release.path, "--clock", "testflight", "--out", dir.path, "--quiet"] + options)
        #expect(result.status == status, "\(options): \(result.stderr)")
        #expect(result.stderr.contains(" steps performed ("), "the summary says how much was performed: \(result.stderr)")
        if status == 1 {
            #expect(result.stderr.contains(options[0]), "the error names the option that decided: \(result.stderr)")
        }
    }

    @Test("--min-performed takes a percentage")
    func badPercentage() async throws {
        let result = try await MatrixBinary.run(["run", release.path, "--min-performed", "150"])
        #expect(result.status == 64 && result.stderr.contains("--min-performed must be an integer from 0 to 100"))
    }
}
