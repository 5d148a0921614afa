import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixCLI
@testable import TestSupport

/// Deleting a field of run.json turns no check off: what can no longer be checked is reported, never passed.
@Suite("matrix verify: no check is skipped by deleting a field")
struct VerifyMissingFieldTests {
    static func editManifest(_ run: URL, _ edit: (inout [String: Any]) -> Void) throws {
        let url = run.appendingPathComponent("run.json")
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        edit(&manifest)
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: url)
    }

    /// Rewrites one record's wallEnd in place: nothing but the file's digest shows the edit.
    static func editEvidenceInPlace(_ run: URL) throws {
        let url = run.appendingPathComponent("evidence.jsonl")
        var text = try String(contentsOf: url, encoding: .utf8)
        let range = try #require(text.range(of: #""wallEnd":"20"#))
        text.replaceSubrange(range, with: #""wallEnd":"19"#)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    @Test("Without endedAt (or with the old running status) evidence edited in place is UNVERIFIABLE, and the run does not verify",
          arguments: ["endedAt", "running"])
    func notEnded(edit: String) async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.editEvidenceInPlace(release.run)
        let edited = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(edited.status == 1)
        #expect(edited.stdout.contains("run.json      ALTERED   evidence.jsonl"), "\(edited.stdout)")

        try Self.editManifest(release.run) { manifest in
            if edit == "endedAt" { manifest.removeValue(forKey: "endedAt") } else { manifest["status"] = "running" }
        }
        let result = try await CapturedRun.run(["verify", release.run.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("run.json      UNVERIFIABLE evidence.jsonl: run.json lists it as it was when the run started, and the run "
                                       + "has not ended, so no SHA-256 of its final bytes was recorded"), "\(result.stdout)")
        let evidence = edit == "endedAt" ? "run.json has no endedAt" : "run.json's status is running"
        #expect(result.stderr.contains("the run was interrupted (\(evidence)): resume it to finish it"), "\(result.stderr)")
        #expect(!result.stderr.contains("unaltered"), "\(result.stderr)")
        #expect(!result.stderr.contains("has grown"))
        #expect(result.stderr.contains("does not verify; unverifiable: evidence.jsonl"), "\(result.stderr)")
        let json = try await CapturedRun.run(["verify", release.run.path, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["passed"] as? Bool == false)
        let files = try #require(document["files"] as? [[String: Any]])
        #expect(files.first { $0["path"] as? String == "evidence.jsonl" }?["status"] as? String == "unverifiable")
    }

    @Test("Without catalogSHA256 the matrix is not taken as the run's: the run does not verify, and with --without-matrix a warning says why")
    func noCatalogDigest() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.editManifest(release.run) { manifest in
            var matrix = manifest["matrix"] as? [String: Any] ?? [:]
            matrix.removeValue(forKey: "catalogSHA256")
            manifest["matrix"] = matrix
        }
        let refused = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(refused.status == 1 && refused.stderr.contains("records cannot be checked against the matrix"), "\(refused.stderr)")
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet", "--without-matrix"])
        #expect(result.stderr.contains("warning: records not checked against the matrix, verdicts not re-judged: run.json records no SHA-256 "
                                       + "for the catalog of"), "\(result.stderr)")
    }

    @Test("A local run without signedEnvironment is held to Sandbox, the environment local runs sign with")
    func noSignedEnvironment() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.editManifest(release.run) { $0.removeValue(forKey: "signedEnvironment") }
        let result = try await CapturedRun.run(["verify", release.run.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note: environment Sandbox, which local runs sign with (run.json records no signedEnvironment)"),
                "\(result.stderr)")
        let production = try await CapturedRun.run(["verify", release.run.path, "--quiet", "--environment", "Production", "--app-apple-id", "1"])
        #expect(production.status == 1)
        #expect(production.stderr.contains("--environment Production was given, but the run signed its data as Sandbox"), "\(production.stderr)")
    }
}
