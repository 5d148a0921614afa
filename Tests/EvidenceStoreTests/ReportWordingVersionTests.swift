@testable import EvidenceStore
import Foundation
import MatrixModel
import Testing

/// `matrix verify` compares a run's reports with a fresh rendering only for runs of its own version
/// (``ToolVersion``), so a change to what reports say must come with a new version. The golden run reports of the
/// reporters' and the recorded-run tests stand for what reports say: their fingerprint is pinned here, one per
/// version. A tripwire, not a proof: wording that no golden report shows is not covered.
@Suite struct ReportWordingVersionTests {
    /// The golden run reports' fingerprint as each version renders them, oldest first; a new version adds a line.
    static let fingerprints: [(version: String, fingerprint: String)] = [
        ("0.2.0", "f748b1703a7db400d7b8ae84b4db74783e69dc2cb6bffa3383a7503e8057288a"),
    ]

    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The reports `matrix verify` renders again (summary.md, report.html, junit.xml), as the golden tests keep them.
    static let goldenReports = [
        "ReportersTests/Golden/summary.md", "ReportersTests/Golden/report.html", "ReportersTests/Golden/junit.xml",
        "AppHarnessTests/Golden/release.summary.md", "AppHarnessTests/Golden/release.report.html",
        "AppHarnessTests/Golden/release.junit.xml", "AppHarnessTests/Golden/year-of-renewals.summary.md",
        "AppHarnessTests/Golden/year-of-renewals.report.html", "AppHarnessTests/Golden/year-of-renewals.junit.xml",
    ]

    /// SHA-256 over each golden report's name, length and bytes, in the order above.
    static func fingerprint() throws -> String {
        var bytes: [UInt8] = []
        for name in goldenReports {
            let contents = try [UInt8](Data(contentsOf: tests.appendingPathComponent(name)))
            bytes += Array("\(name)\n\(contents.count)\n".utf8) + contents
        }
        return Digests.sha256.hexDigest(of: bytes)
    }

    @Test func theNewestPinnedVersionIsThisOne() {
        #expect(Self.fingerprints.last?.version == ToolVersion.current,
                "ToolVersion.current is \(ToolVersion.current); pin its reports' fingerprint as the last entry")
        #expect(Set(Self.fingerprints.map(\.version)).count == Self.fingerprints.count, "a version is pinned twice")
        #expect(Set(Self.fingerprints.map(\.fingerprint)).count == Self.fingerprints.count,
                "two versions pin the same fingerprint: a version was added without a change to the reports, or one was edited")
    }

    @Test func reportsSayWhatThisVersionsReportsSaid() throws {
        let actual = try Self.fingerprint()
        let pinned = try #require(Self.fingerprints.last)
        #expect(actual == pinned.fingerprint, """
            The golden run reports changed under matrix \(pinned.version) (fingerprint \(actual)): verify would call \
            every earlier \(pinned.version) run's reports ALTERED. Give the change a new ToolVersion.current and add \
            ("NEW VERSION", "\(actual)") to ReportWordingVersionTests.fingerprints.
            """)
    }
}
