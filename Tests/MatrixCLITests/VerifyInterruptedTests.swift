import Foundation
import Testing
@testable import TestSupport

/// A run stopped while writing its reports left what it was writing behind: it is interrupted, not tampered with.
@Suite("matrix verify: a run stopped while writing its reports")
struct VerifyInterruptedTests {
    /// The release run as a stop between report writes leaves it: run.json as written at the start (no endedAt,
    /// only the empty evidence listed), junit.xml and summary.md renamed into place, report.html still its
    /// temporary file.
    static func stoppedWhileWritingReports(_ run: URL) throws {
        try VerifyMissingFieldTests.editManifest(run) { manifest in
            manifest["status"] = "interrupted"
            manifest.removeValue(forKey: "endedAt")
            manifest["files"] = ["evidence.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"]
        }
        try FileManager.default.moveItem(at: run.appendingPathComponent("report.html"), to: run.appendingPathComponent(".report.html.tmp"))
    }

    @Test("its reports and leftover .tmp file are UNFINISHED, not EXTRA, and the run is reported interrupted")
    func interrupted() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.stoppedWhileWritingReports(release.run)
        let result = try await CapturedRun.run(["verify", release.run.path])
        #expect(result.status == 1, "nothing covers the final files: not verified")
        #expect(result.stderr.contains("does not verify; unverifiable: evidence.jsonl; unfinished: .report.html.tmp, junit.xml, summary.md; "
                                       + "the run was interrupted (run.json has no endedAt): resume it to finish it"), "\(result.stderr)")
        let output = result.stdout + result.stderr
        for name in [".report.html.tmp", "junit.xml", "summary.md"] {
            #expect(output.contains("UNFINISHED \(name): written while the run was stopping, before run.json listed it"), "\(output)")
        }
        #expect(!(result.stdout + result.stderr).contains("EXTRA"))
        // run.json lists no report yet, so none is held to a SHA-256 or rendered again to be compared.
        #expect(!output.contains("does not match the evidence") && !output.contains("reports match"), "\(output)")
    }

    @Test("a file a run never writes is still EXTRA there, and an ended run's leftover .tmp is EXTRA: neither is an interruption")
    func notAnInterruption() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Data("x".utf8).write(to: release.run.appendingPathComponent(".junit.xml.tmp"))
        let ended = try await CapturedRun.run(["verify", release.run.path])
        #expect(ended.status == 1)
        #expect(ended.stderr.contains("does not verify; extra: .junit.xml.tmp"), "\(ended.stderr)")

        try Self.stoppedWhileWritingReports(release.run)
        try Data("planted".utf8).write(to: release.run.appendingPathComponent("notes.txt"))
        let planted = try await CapturedRun.run(["verify", release.run.path])
        #expect(planted.status == 1)
        #expect(planted.stderr.contains("does not verify") && planted.stderr.contains("extra: notes.txt"), "\(planted.stderr)")
    }
}
