import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixCLI
@testable import TestSupport

/// A run whose evidence or run.json names a key twice does not verify: `matrix verify` would read one value
/// and jq or Python the other.
@Suite("matrix verify: a key named twice is refused")
struct VerifyDuplicateKeyTests {
    @Test("A record that says pass to one reader and fail to another does not verify, and the message places the key")
    func repeatedVerdict() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let evidence = release.run.appendingPathComponent("evidence.jsonl")
        var lines = try String(contentsOf: evidence, encoding: .utf8).split(separator: "\n").map(String.init)
        let range = try #require(lines[4].range(of: #""verdict":"pass""#))
        lines[4].replaceSubrange(range, with: #""verdict":"pass","verdict":"fail""#)
        let column = lines[4].utf8.distance(from: lines[4].startIndex, to: try #require(lines[4].range(of: #""verdict":"fail""#)).lowerBound) + 1
        try Tamper.rewrite(evidence, lines.joined(separator: "\n") + "\n", rehashIn: release.run)
        let result = try await CapturedRun.run(["verify", release.run.path, "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("evidence.jsonl cannot be read: \(evidence.path):5:\(column): duplicate key \"verdict\": "
                                       + "each key may appear once in an object (at /verdict)"), "\(result.stderr)")
        let report = try await CapturedRun.run(["report", release.run.path, "--format", "json"])
        #expect(report.status != 0, "matrix report reads the same records and refuses them too")
        #expect(report.stderr.contains(#"duplicate key "verdict""#), "\(report.stderr)")
    }

    @Test("run.json that repeats a key is not a run directory matrix reads")
    func repeatedKeyInRunJSON() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        let manifest = release.run.appendingPathComponent("run.json")
        var text = try String(contentsOf: manifest, encoding: .utf8)
        let range = try #require(text.range(of: #"  "signedEnvironment" : "Sandbox""#))
        text.replaceSubrange(range, with: "  \"signedEnvironment\" : \"Sandbox\",\n  \"signedEnvironment\" : \"Xcode\"")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let result = try await CapturedRun.run(["verify", release.run.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"duplicate key "signedEnvironment": each key may appear once in an object (at /signedEnvironment)"#),
                "\(result.stderr)")
    }
}
