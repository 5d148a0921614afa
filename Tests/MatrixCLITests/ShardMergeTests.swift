import Foundation
import Testing
import MatrixEngine
import MatrixModel
import TestSupport

@Suite("Sharded runs and merge")
struct ShardMergeTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("three shards merge into one complete run with every step once, in matrix order")
    func shardAndMerge() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-shards")
        defer { try? FileManager.default.removeItem(at: dir) }
        for k in 1...3 {
            let result = try await MatrixBinary.run(["run", release.path, "--shard", "\(k)/3", "--out", dir.appendingPathComponent("slices").path, "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(" · shard \(k)/3 · evidence: "), "the summary line names its shard")
        }
        let slices = MatrixBinary.runDirectories(under: dir.appendingPathComponent("slices"))
        try #require(slices.count == 3)
        let titles = try slices.map { try String(contentsOf: $0.appendingPathComponent("summary.md"), encoding: .utf8).prefix { $0 != "\n" } }
        #expect(Set(titles) == Set((1...3).map { "# StoreKit Matrix: release (shard \($0)/3) — PASS" }), "each shard's summary.md names it: \(titles)")
        for slice in slices {
            let html = try String(contentsOf: slice.appendingPathComponent("report.html"), encoding: .utf8)
            let junit = try String(contentsOf: slice.appendingPathComponent("junit.xml"), encoding: .utf8)
            let k = try #require((1...3).first { html.contains("<title>StoreKit Matrix: release (shard \($0)/3) — PASS</title>") },
                                 "report.html's title names the shard")
            #expect(junit.contains("<testsuites name=\"release (shard \(k)/3)\""), "junit.xml names the shard")
            #expect(html.contains("<dt>Shard</dt><dd>\(k)/3: "), "report.html's metadata has the shard")
        }
        let merged = dir.appendingPathComponent("merged")
        let result = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", merged.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOf: merged.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: release)) as? [String: Any])
        let cases = try #require(object["cases"] as? [[String: Any]])
        let expectedOrder = cases.flatMap { c in ((c["steps"] as? [Any]) ?? []).indices.map { "\(c["id"] ?? "")#\($0)" } }
        #expect(records.map { "\($0.case)#\($0.step)" } == expectedOrder)
        #expect(records.map(\.seq) == Array(1...records.count))
        #expect(Set(records.map(\.run)) == ["merged"])
        let manifest = try String(contentsOf: merged.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#""status" : "complete""#) && manifest.contains("mergedFrom"))
        #expect(result.stderr.contains("34 cases: 34 pass · 153 steps: 153 pass (5 pass without an expectation) · evidence: \(merged.path)"),
                "the summary line of a run of the whole matrix: \(result.stderr)")

        let twice = try await MatrixBinary.run(["merge", slices[0].path, slices[0].path + "/", "--out", dir.appendingPathComponent("bad").path])
        #expect(twice.status == 64 && twice.stderr.contains("is given twice; name each slice once"), "\(twice.stderr)")
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: slices[0], to: copy)
        let overlap = try await MatrixBinary.run(["merge", slices[0].path, copy.path, "--out", dir.appendingPathComponent("bad").path])
        #expect(overlap.status == 65 && overlap.stderr.contains("slices must not overlap"), "\(overlap.stderr)")
        let partial = try await MatrixBinary.run(["merge", slices[0].path, slices[1].path, "--out", dir.appendingPathComponent("partial").path])
        #expect(partial.status == 1 && partial.stderr.contains("no step in any slice"), "an incomplete merge is kept but fails: \(partial.stderr)")
        #expect(partial.stderr.contains(" · interrupted · evidence: "))
        #expect(partial.stderr.contains("resume each slice that did not complete"))
        let resumeMerged = try await MatrixBinary.run(["run", "--resume", dir.appendingPathComponent("partial").path])
        #expect(resumeMerged.status == 64 && resumeMerged.stderr.contains("was merged from slices and is not resumed"), "\(resumeMerged.stderr)")
        let inside = try await MatrixBinary.run(["merge", slices[0].path, slices[1].path, slices[2].path, "--out", slices[1].appendingPathComponent("merged").path])
        #expect(inside.status == 64 && inside.stderr.contains("is inside the slice"), "\(inside.stderr)")
    }

    @Test("slices whose matrix is not found from here nor above them: merge asks for --matrix (66), and merges with it")
    func matrixNamedForMerge() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-merge-elsewhere")
        defer { try? FileManager.default.removeItem(at: dir) }
        let project = dir.appendingPathComponent("project/matrices")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        for name in ["release.json", "Products.storekit"] {
            try FileManager.default.copyItem(at: release.deletingLastPathComponent().appendingPathComponent(name),
                                             to: project.appendingPathComponent(name))
        }
        // Run from the project with a relative path; the slices go outside it.
        for k in 1...2 {
            let shard = try await MatrixBinary.run(["run", "matrices/release.json", "--shard", "\(k)/2", "--out", dir.appendingPathComponent("slices").path,
                                                    "--quiet"], in: dir.appendingPathComponent("project"))
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let slices = MatrixBinary.runDirectories(under: dir.appendingPathComponent("slices"))
        try #require(slices.count == 2)
        let lost = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", dir.appendingPathComponent("m1").path], in: dir)
        #expect(lost.status == 66 && lost.stderr.contains("matrices/release.json is not found") && lost.stderr.contains("--matrix MATRIX"),
                "\(lost.stderr)")
        let named = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", dir.appendingPathComponent("m2").path,
                                                "--matrix", project.appendingPathComponent("release.json").path], in: dir)
        #expect(named.status == 0, "\(named.stderr)")
    }

    @Test("a slice whose evidence changed after it ended is refused; a slice whose case lacks steps merges as interrupted")
    func alteredSlices() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-altered-shards")
        defer { try? FileManager.default.removeItem(at: dir) }
        for k in 1...2 {
            #expect(try await MatrixBinary.run(["run", release.path, "--shard", "\(k)/2", "--out", dir.appendingPathComponent("s").path, "--quiet"]).status == 0)
        }
        let slices = MatrixBinary.runDirectories(under: dir.appendingPathComponent("s"))
        try #require(slices.count == 2)
        let evidence = slices[1].appendingPathComponent("evidence.jsonl")
        var lines = try String(contentsOf: evidence, encoding: .utf8).split(separator: "\n").map(String.init)
        lines.remove(at: 1)
        try (lines.joined(separator: "\n") + "\n").write(to: evidence, atomically: true, encoding: .utf8)
        let altered = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", dir.appendingPathComponent("m1").path])
        #expect(altered.status == 65 && altered.stderr.contains("does not match the SHA-256 its run.json recorded"), "\(altered.stderr)")

        // The same slice with its run.json re-hashed: the case that lost a step makes the merged run interrupted.
        try Tamper.rewrite(evidence, lines.joined(separator: "\n") + "\n", rehashIn: slices[1])
        let merged = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", dir.appendingPathComponent("m2").path])
        #expect(merged.status == 1 && merged.stderr.contains("lacks steps in its slice"), "\(merged.stderr)")
        let manifest = try String(contentsOf: dir.appendingPathComponent("m2/run.json"), encoding: .utf8)
        #expect(manifest.contains(#""status" : "interrupted""#))
        // The case that lost a step is unfinished in the merged run: labelled so, left out of the case counts, and
        // `matrix report` agrees with the merge's own reports.
        #expect(manifest.contains(#""unfinishedCases" : ["#), "\(manifest)")
        let summary = try String(contentsOf: dir.appendingPathComponent("m2/summary.md"), encoding: .utf8)
        #expect(summary.contains("**INTERRUPTED**"))
        let report = try await MatrixBinary.run(["report", dir.appendingPathComponent("m2").path])
        #expect(report.status == 0 && report.stdout == summary)
        // verify renders them again as the merge's evidence was read, with its unfinished case: no report is flagged.
        let verified = try await MatrixBinary.run(["verify", dir.appendingPathComponent("m2").path, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])
        let reports = try #require(document["reports"] as? [[String: Any]])
        #expect(reports.count == 3 && reports.allSatisfy { $0["matchesEvidence"] as? Bool == true }, "\(reports)")
    }

    @Test("slices run with another build, clock or app fault are not one run and are refused", arguments: [
        (["--build", "9.9"], "with build 9.9, not unspecified (local run)"),
        (["--clock", "sandbox:5"], "with clock sandbox:5, not real"),
        (["--app-fault", "pendingUnlocks"], "with app fault pendingUnlocks, not (none)"),
    ])
    func mixedSettingsRefused(options: [String], words: String) async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-mixed-shards")
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try await MatrixBinary.run(["run", release.path, "--shard", "1/2", "--out", dir.appendingPathComponent("a").path, "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        _ = try await MatrixBinary.run(["run", release.path, "--shard", "2/2", "--out", dir.appendingPathComponent("b").path, "--quiet"] + options)
        let slices = [MatrixBinary.runDirectories(under: dir.appendingPathComponent("a")), MatrixBinary.runDirectories(under: dir.appendingPathComponent("b"))].flatMap { $0 }
        try #require(slices.count == 2)
        let merged = try await MatrixBinary.run(["merge"] + slices.map(\.path) + ["--out", dir.appendingPathComponent("merged").path])
        #expect(merged.status == 65)
        #expect(merged.stderr.contains(words), "\(merged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("merged").path))
    }
}
