import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixJSON
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

@Suite("Golden files")
struct GoldenTests {
    /// Runs the whole life of a run directory with the sample records and returns its files.
    static func finishedRun() async throws -> (directory: RunDirectory, root: URL) {
        let root = try Scratch.directory()
        let directory = try RunDirectory.create(root: root, environment: "sandbox", build: "1.4 (212)", runID: SampleRun.runID)
        let writer = try EvidenceWriter(directory: directory)
        try directory.writeManifest(SampleRun.manifest)
        for record in SampleRun.records {
            try await writer.append(record)
        }
        await writer.close()
        try directory.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
        return (directory, root)
    }

    @Test("A finished run directory's files match their golden files", arguments: [
        "run.json", "evidence.jsonl", "junit.xml", "summary.md", "report.html",
    ])
    func runDirectoryFile(name: String) async throws {
        let (directory, root) = try await Self.finishedRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = try Data(contentsOf: directory.url.appendingPathComponent(name))
        try GoldenFile.check(data, named: name)
    }

    @Test("The JSON report matches its golden file")
    func jsonReport() throws {
        var manifest = SampleRun.manifest
        manifest.status = .complete
        manifest.endedAt = Timestamp.iso8601(SampleRun.wallEnd)
        manifest.counts = RunCounts(records: SampleRun.records)
        try GoldenFile.check(Reports.render(.json, records: SampleRun.records, manifest: manifest), named: "report.json")
    }
}
