import EvidenceStore
import Foundation
import LocalEnvironment
import MatrixEngine
import MatrixModel
import ReferenceApp
import TestSupport
import Testing

/// A matrix run on the embedded store with every item signed, written as `matrix run` writes it (the runner, the
/// evidence writer, the reports composed as the records are written), with the wall clock fixed: its evidence,
/// decoded (each JWS by its payload, nested JWS included, since signatures are randomised), and its reports match
/// golden files. Work taken out of a step must leave every byte of both as it was.
@Suite("Recorded runs: decoded evidence and reports match their golden files")
struct RecordedRunGoldenTests {
    struct FixedClock: WallClock {
        func now() -> Date { Date(timeIntervalSince1970: 1_768_471_200) }
    }

    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// The matrices recorded: the release matrix, and a year of monthly renewals with a relaunch after each.
    static let subjects = ["matrices/release.json", "bench/year-of-renewals.json"]

    @Test("a signed run records the evidence and reports of its golden files", arguments: subjects)
    func recordedRun(_ subject: String) async throws {
        let file = try MatrixFile.read(Fixtures.packageDirectory.appendingPathComponent(subject).path)
        let matrix = try #require(file.matrix, "\(file.diagnostics.map(\.rendered))")
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let context = RunContext(runID: "golden", environment: "local", build: "b", device: "embedded simulator", os: "n/a (embedded)")
        let directory = try RunDirectory.create(root: root, environment: context.environment, build: context.build, runID: context.runID)
        let writer = try EvidenceWriter(directory: directory)
        let manifest = RunManifest(toolVersion: "0.1.0-test", context: context,
                                   matrix: MatrixReference(path: subject, contents: Data("{}".utf8), name: matrix.name),
                                   clock: "real", accounts: RunManifest.accounts(of: matrix), startedAt: FixedClock().now())
        try directory.writeManifest(manifest)
        let adapter = try LocalAdapter(signing: true, app: .reference())
        let summary = try await HeavyWork.run {
            try await Runner(matrix: matrix, adapter: adapter, context: context, wallClock: FixedClock(), jobs: 2).run(into: writer)
        }
        try await writer.sync()
        let final = try await writer.finish(manifest, status: summary.interrupted ? .interrupted : .complete, endedAt: FixedClock().now())

        let (records, dropped) = try directory.readEvidence()
        #expect(!dropped && records.count == matrix.cases.reduce(0) { $0 + $1.steps.count })
        #expect(records.contains { !($0.observed?.signedData.isEmpty ?? true) }, "the run signs its transactions and notifications")
        #expect(final.counts.steps == VerdictCounts(records.map(\.verdict)))
        let name = String(subject.split(separator: "/").last!.dropLast(".json".count))
        let decoded = try records.map { try EvidenceComparison.comparable($0) + "\n" }.joined()
        try check(Data(decoded.utf8), named: "\(name).evidence.decoded.jsonl")
        for report in ["junit.xml", "summary.md", "report.html"] {
            try check(Data(contentsOf: directory.url.appendingPathComponent(report)), named: "\(name).\(report)")
        }
    }

    /// Compares `actual` with the golden file `name`, or records it with `MATRIX_RECORD_GOLDEN=1`.
    func check(_ actual: Data, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = Self.golden.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["MATRIX_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try actual.write(to: url)
            return
        }
        let expected = try #require(try? Data(contentsOf: url), "missing golden file \(name); run the tests with MATRIX_RECORD_GOLDEN=1",
                                    sourceLocation: sourceLocation)
        guard actual != expected else { return }
        let actualLines = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actualLines.count, expectedLines.count)
        let want = line < expectedLines.count ? String(expectedLines[line].prefix(400)) : "<end of file>"
        let got = line < actualLines.count ? String(actualLines[line].prefix(400)) : "<end of file>"
        Issue.record(Comment(rawValue: "\(name) differs from its golden file at line \(line + 1):\n  golden: \(want)\n  actual: \(got)\n"
                                 + "Re-record with MATRIX_RECORD_GOLDEN=1 only if the change is meant to change what runs record."),
                     sourceLocation: sourceLocation)
    }
}
