import Foundation
import Testing
import MatrixModel
import TestSupport

/// `--case`, `--kind`, `--tag` and `--profile` on `run`, `plan` and `score`, and what `merge`, `compare` and
/// `--resume` make of a run that selected cases.
@Suite("Selecting cases")
struct CaseSelectionEndToEndTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")
    let metadata = ["--build", "1.4 (212)", "--device", "iPhone 16", "--os", "iOS 26.1"]

    func records(_ run: URL) throws -> [EvidenceRecord] {
        try String(contentsOf: run.appendingPathComponent("evidence.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
    }

    func manifest(_ run: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("run.json"))) as? [String: Any])
    }

    @Test("a run with --case globs and --kind runs only those cases and records the selection in run.json and the reports")
    func selectedRun() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-select")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await MatrixBinary.run(["run", release.path, "--case", "refund/*", "--case", "restore/*", "--kind", "refund",
                                           "--out", dir.path, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("3 cases: 3 pass") && result.stderr.contains("selected: case refund/* or restore/*, kind refund, 3 of 34 cases"),
                "\(result.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir).first)
        #expect(Set(try records(run).map(\.case)) == ["refund/pro", "refund/plus-monthly", "refund/coins-request-declined"])
        let written = try manifest(run)
        #expect(written["selectedCases"] as? [String] == ["refund/pro", "refund/plus-monthly", "refund/coins-request-declined"])
        let selection = try #require(written["selection"] as? [String: Any])
        #expect(selection["cases"] as? [String] == ["refund/*", "restore/*"] && selection["kinds"] as? [String] == ["refund"])
        let summary = try String(contentsOf: run.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("| Selection | case refund/\\* or restore/\\*, kind refund: 3 cases; the matrix's other cases were not run |")
                || summary.contains("| Selection | case refund/* or restore/*, kind refund: 3 cases"), "\(summary.prefix(1200))")
        let verified = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(verified.status == 0, "a complete selected run verifies: \(verified.stderr)")
    }

    @Test("a selection that matches nothing is a usage error with the nearest name, and nothing is written",
          arguments: [(["--case", "refnd/pro"], #"no case id matches "refnd/pro"; did you mean "refund/pro"?"#),
                      (["--kind", "renewals"], #"no case of the matrix has kind "renewals"; did you mean "renewal"?"#),
                      (["--tag", "smok"], #"no case of the matrix has tag "smok"; did you mean "smoke"?"#),
                      (["--profile", "smok"], #"the matrix has no profile "smok"; did you mean "smoke"?"#)])
    func nothingMatches(options: [String], message: String) async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-select")
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await MatrixBinary.run(["run", release.path, "--out", dir.path] + options)
        #expect(result.status == 64 && result.stderr.contains("error: " + message), "\(result.stderr)")
        #expect(MatrixBinary.runDirectories(under: dir).isEmpty)
    }

    @Test("plan and score take the selection too")
    func planAndScore() async throws {
        let plan = try await MatrixBinary.run(["plan", release.path, "--env", "testflight", "--profile", "smoke", "--format", "json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stderr.contains("planning 7 of the matrix's 34 cases (profile smoke)"), "\(plan.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        #expect((object["cases"] as? [Any])?.count == 7)
        let score = try await MatrixBinary.run(["score", release.path, "--kind", "pending", "--min-score", "0"])
        #expect(score.status == 0 && score.stderr.contains("scoring 3 of the matrix's 34 cases (kind pending)"), "\(score.stderr)")
        #expect(score.stdout.contains("MISSED"), "three Ask to Buy cases cannot catch every fault: \(score.stdout)")
    }

    @Test("shards of a selected run merge into a complete run of the selection")
    func shardsOfASelection() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-select")
        defer { try? FileManager.default.removeItem(at: dir) }
        for k in 1...2 {
            let result = try await MatrixBinary.run(["run", release.path, "--tag", "smoke", "--shard", "\(k)/2", "--out", dir.appendingPathComponent("slices").path,
                                               "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let slices = MatrixBinary.runDirectories(under: dir.appendingPathComponent("slices"))
        try #require(slices.count == 2)
        let sliceCases = try slices.map { Set(try records($0).map(\.case)) }
        #expect(sliceCases[0].isDisjoint(with: sliceCases[1]) && sliceCases[0].union(sliceCases[1]).count == 7)
        let merged = dir.appendingPathComponent("merged")
        let result = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", merged.path])
        #expect(result.status == 0, "the merged run holds every selected case: \(result.stderr)")
        #expect(try manifest(merged)["status"] as? String == "complete")
        #expect((try manifest(merged)["selectedCases"] as? [String])?.count == 7)
        let other = try await MatrixBinary.run(["run", release.path, "--kind", "refund", "--shard", "1/2", "--out", dir.appendingPathComponent("other").path,
                                          "--quiet"])
        #expect(other.status == 0)
        let mixed = try await MatrixBinary.run(["merge", slices[0].path] + MatrixBinary.runDirectories(under: dir.appendingPathComponent("other")).map(\.path)
                                         + ["--out", dir.appendingPathComponent("mixed").path])
        #expect(mixed.status == 65 && mixed.stderr.contains("ran with selection kind refund, not tag smoke"), "\(mixed.stderr)")
    }

    @Test("compare joins a full local run with a selected Sandbox run without calling the cases it did not select missing")
    func compareSelected() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-select")
        defer { try? FileManager.default.removeItem(at: dir) }
        let local = try await MatrixBinary.run(["run", release.path, "--out", dir.appendingPathComponent("local").path, "--quiet"])
        #expect(local.status == 0)
        let localRun = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("local")).first)
        let file = dir.appendingPathComponent("answers.jsonl")
        try await answers("refund", in: dir).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let sandbox = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--kind", "refund", "--answers", file.path,
                                            "--out", dir.appendingPathComponent("sandbox").path, "--quiet"] + metadata)
        #expect(sandbox.status == 0, "\(sandbox.stderr)")
        let sandboxRun = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("sandbox")).first)
        let compared = try await MatrixBinary.run(["compare", localRun.path, sandboxRun.path, "--format", "json"])
        #expect(compared.status == 0, "\(compared.stdout)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [String: Any])
        #expect((json["unmatched"] as? [Any])?.isEmpty ?? true, "\(json["unmatched"] ?? "")")
        #expect(json["casesCompared"] as? Int == 3)
        let warnings = json["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("run sandbox selected 3 cases (kind refund)") }, "\(warnings)")
        #expect(!warnings.contains { $0.contains("not in every run") }, "\(warnings)")
    }

    /// Answers a tester would give for `cases`: what the reference app showed in a local run.
    func answers(_ cases: String, in dir: URL) async throws -> [String] {
        let local = try await MatrixBinary.run(["run", release.path, "--kind", cases, "--out", dir.appendingPathComponent("ref").path, "--quiet"])
        try #require(local.status == 0)
        let reference = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("ref")).first)
        return try records(reference).map { record in
            let result = record.observed?.result.map { #", "result": "\#($0)""# } ?? ""
            return #"{"case": "\#(record.case)", "step": \#(record.step), "access": \#(record.observed?.access.description ?? "[]")\#(result)}"#
        }
    }

    @Test("a selected run stopped part way resumes to the end of its selection, and takes no new selection")
    func resumeSelected() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-select")
        defer { try? FileManager.default.removeItem(at: dir) }
        let all = try await answers("refund", in: dir)
        let file = dir.appendingPathComponent("answers.jsonl")
        try all[0].write(to: file, atomically: true, encoding: .utf8)
        let stopped = try await MatrixBinary.run(["run", release.path, "--env", "sandbox", "--kind", "refund", "--answers", file.path,
                                            "--out", dir.appendingPathComponent("guided").path, "--quiet"] + metadata)
        #expect(stopped.status == 130, "\(stopped.stderr)")
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("guided")).first)
        let again = try await MatrixBinary.run(["run", "--resume", run.path, "--kind", "renewal"])
        #expect(again.status == 64 && again.stderr.contains("drop --kind"), "\(again.stderr)")
        try all.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let resumed = try await MatrixBinary.run(["run", "--resume", run.path, "--answers", file.path, "--quiet"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(Set(try records(run).map(\.case)) == ["refund/pro", "refund/plus-monthly", "refund/coins-request-declined"])
        #expect(try manifest(run)["status"] as? String == "complete")
    }
}
