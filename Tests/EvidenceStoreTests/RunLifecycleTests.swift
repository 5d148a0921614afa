import Foundation
import Testing
@testable import EvidenceStore
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport

@Suite("Run lifecycle")
struct RunLifecycleTests {
    @Test("Writing the manifest at the start digests the files present and leaves no temporary file")
    func writeAtStart() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try RunDirectory.create(root: root, environment: "local", build: "local", runID: "run")
        _ = try EvidenceWriter(directory: directory)
        let written = try directory.writeManifest(SampleRun.manifest)
        #expect(written.files == ["evidence.jsonl": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"])
        #expect(try directory.readManifest() == written)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["evidence.jsonl", "run.json"])
    }

    @Test("Finishing a run writes the reports and a final manifest whose digests match every file")
    func finish() async throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = try RunDirectory.create(root: root, environment: "sandbox", build: "1.4 (212)", runID: "run")
        let writer = try EvidenceWriter(directory: directory)
        try directory.writeManifest(SampleRun.manifest)
        for record in SampleRun.records { try await writer.append(record) }
        await writer.close()
        // A torn line, as a crash would leave: left out of the counts.
        let handle = try FileHandle(forWritingTo: directory.evidenceURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"run":"#.utf8))
        try handle.close()

        let final = try directory.finish(SampleRun.manifest, status: .interrupted, endedAt: SampleRun.wallEnd)
        #expect(final.status == .interrupted)
        #expect(final.endedAt == "2026-01-15T10:01:35.000Z")
        #expect(final.counts == RunCounts(records: SampleRun.records))
        #expect(final.files.keys.sorted() == ["evidence.jsonl", "junit.xml", "report.html", "summary.md"])
        for (name, digest) in final.files {
            #expect(digest == (try Digests.sha256.hexDigest(ofFileAt: directory.url.appendingPathComponent(name))), "\(name)")
        }
        #expect(try directory.readManifest() == final)
        #expect(try Reports.render(.junit, from: directory) == (try Data(contentsOf: directory.url.appendingPathComponent("junit.xml"))))
    }
}
