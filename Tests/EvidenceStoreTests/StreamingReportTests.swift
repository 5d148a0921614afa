import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import MatrixJSON
@testable import MatrixModel
@testable import Reporters
@testable import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reports rendered while the evidence is read one case at a time are the reports of the whole evidence.
@Suite("Streaming reports")
struct StreamingReportTests {
    /// A run directory holding `records` as its evidence, written in the given order.
    private func run(_ records: [EvidenceRecord]) async throws -> (RunDirectory, URL) {
        let root = try Scratch.directory()
        let directory = try RunDirectory.create(root: root, environment: "sandbox", build: "1.4 (212)", runID: SampleRun.runID)
        let writer = try EvidenceWriter(directory: directory)
        try directory.writeManifest(SampleRun.manifest)
        for record in records { try await writer.append(record) }
        await writer.close()
        return (directory, root)
    }

    private func finishedManifest(_ records: [EvidenceRecord]) -> RunManifest {
        var manifest = SampleRun.manifest
        manifest.status = .complete
        manifest.endedAt = Timestamp.iso8601(SampleRun.wallEnd)
        manifest.counts = RunCounts(records: records)
        return manifest
    }

    @Test("Each report streamed from the golden run's evidence equals the report rendered from its records in memory",
          arguments: ReportFormat.allCases)
    func sameAsInMemory(format: ReportFormat) async throws {
        let (directory, root) = try await run(SampleRun.records)
        defer { try? FileManager.default.removeItem(at: root) }
        let manifest = finishedManifest(SampleRun.records)
        try directory.writeManifest(manifest)
        let streamed = try Reports.render(format, from: directory)
        let inMemory = try Reports.render(format, records: SampleRun.records, manifest: try directory.readManifest())
        #expect(!streamed.isEmpty)
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: inMemory, as: UTF8.self))
    }

    @Test("Evidence whose cases are interleaved still gives the reports of its records grouped by case",
          arguments: [ReportFormat.junit, .markdown, .html])
    func interleaved(format: ReportFormat) async throws {
        // Swap two records of different cases, keeping seq rising in the file: no longer one case at a time.
        var records = SampleRun.records
        records.swapAt(2, 3)
        for index in records.indices { records[index].seq = index + 1 }
        let (directory, root) = try await run(records)
        defer { try? FileManager.default.removeItem(at: root) }
        let streamed = try Reports.render(format, from: directory)
        var manifest = try directory.readManifest()
        manifest.counts = RunCounts(records: records)
        #expect(try streamed == Reports.render(format, records: records, manifest: manifest))
        // The case whose records were split apart is still one case.
        let marker = switch format {
        case .junit: #"<testsuite name="fresh-purchase/pro""#
        case .markdown: "| `fresh-purchase/pro` |"
        default: #"<section class="case" id="case-0""#
        }
        #expect(String(decoding: streamed, as: UTF8.self).components(separatedBy: marker).count - 1 == 1)
    }

    @Test("Finishing a run leaves no spool file behind")
    func noSpoolLeft() async throws {
        let (directory, root) = try await run(SampleRun.records)
        defer { try? FileManager.default.removeItem(at: root) }
        try directory.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(names == ["evidence.jsonl", "junit.xml", "report.html", "run.json", "summary.md"])
    }

    /// `count` cases of two steps; every third case fails its second step.
    private func largeRun(cases count: Int) -> [EvidenceRecord] {
        let failing = SampleRun.records[4]
        let passing = SampleRun.records[0]
        var records: [EvidenceRecord] = []
        for index in 0..<count {
            for step in 0..<2 {
                var record = step == 1 && index % 3 == 0 ? failing : passing
                record.case = "case-\(index)"
                record.kind = "refund"
                record.step = step
                record.seq = records.count + 1
                records.append(record)
            }
        }
        return records
    }

    @Test("A run of more than 1,000 cases lists every case but details only the first 500 problems")
    func largeRunIsCapped() async throws {
        let records = largeRun(cases: 1_600)
        let (directory, root) = try await run(records)
        defer { try? FileManager.default.removeItem(at: root) }
        let final = try directory.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
        #expect(final.counts.cases.total == 1_600)
        #expect(final.counts.cases.fail == 534)
        #expect(final.counts.steps.total == 3_200)

        let markdown = try String(contentsOf: directory.url.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(markdown.components(separatedBy: "\n| `case-").count - 1 == 1_600)
        #expect(markdown.components(separatedBy: "\n### FAIL: ").count - 1 == 500)
        #expect(markdown.contains("_34 more failing or erroring steps are not detailed here (the first 500 are)"))

        let html = try String(contentsOf: directory.url.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.components(separatedBy: "<tr class=\"case-row\"").count - 1 == 1_600)
        #expect(html.components(separatedBy: "<section class=\"case\" id=\"case-").count - 1 == 500)
        // Sections keep their case's index, and only cases with a section are linked.
        #expect(html.contains("<section class=\"case\" id=\"case-1497\""))
        #expect(!html.contains("id=\"case-1500\""))
        #expect(html.components(separatedBy: "<td><a href=\"#case-").count - 1 == 500)
        #expect(html.contains("<h2>Did not pass (534)</h2>") && html.contains("and 514 more in the table of cases below"))
        #expect(html.contains("only the first 500 of the 534 cases that did not pass are shown in detail"))

        let junit = try String(contentsOf: directory.url.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == 3_200)
        #expect(junit.contains("<testsuites name=\"release\" tests=\"3200\" failures=\"534\""))
    }

    @Test("A run of 1,000 cases still has a section for every case")
    func atTheLimit() async throws {
        let records = largeRun(cases: 1_000)
        let (directory, root) = try await run(records)
        defer { try? FileManager.default.removeItem(at: root) }
        try directory.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
        let html = try String(contentsOf: directory.url.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.components(separatedBy: "<section class=\"case\" id=\"case-").count - 1 == 1_000)
        #expect(!html.contains("shown in detail"))
    }

    /// The files of a run finished through its writer (reports composed while writing) and of the same run
    /// finished from its evidence on disk.
    private func bothWays(_ records: [EvidenceRecord]) async throws -> (live: [String: Data], readBack: [String: Data]) {
        var files: [[String: Data]] = []
        for live in [true, false] {
            let root = try Scratch.directory()
            defer { try? FileManager.default.removeItem(at: root) }
            let directory = try RunDirectory.create(root: root, environment: "sandbox", build: "1.4 (212)", runID: SampleRun.runID)
            let writer = try EvidenceWriter(directory: directory)
            try directory.writeManifest(SampleRun.manifest)
            for record in records { try await writer.append(record) }
            if live {
                try await writer.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
            } else {
                await writer.close()
                try directory.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
            }
            var contents: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
                contents[name] = try Data(contentsOf: directory.url.appendingPathComponent(name))
            }
            files.append(contents)
        }
        return (files[0], files[1])
    }

    @Test("A run finished through its writer has the files of the same run finished by reading its evidence back",
          arguments: [0, 1_200])
    func liveEqualsReadBack(cases: Int) async throws {
        let records = cases == 0 ? SampleRun.records : largeRun(cases: cases)
        let (live, readBack) = try await bothWays(records)
        #expect(live.keys.sorted() == ["evidence.jsonl", "junit.xml", "report.html", "run.json", "summary.md"])
        #expect(live.keys.sorted() == readBack.keys.sorted())
        for (name, data) in live {
            #expect(data == readBack[name], "\(name)")
        }
    }

    @Test("A new run's writer does not read the evidence back to write the reports")
    func liveDoesNotReadBack() async throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let live = try RunDirectory.create(root: root, environment: "local", build: "b", runID: "live")
        let writer = try EvidenceWriter(directory: live)
        try live.writeManifest(SampleRun.manifest)
        for record in SampleRun.records { try await writer.append(record) }
        // Without its evidence, only reports composed while writing can count the steps.
        try FileManager.default.removeItem(at: live.evidenceURL)
        let final = try await writer.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
        #expect(final.counts == RunCounts(records: SampleRun.records))
        let junit = try String(contentsOf: live.url.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == SampleRun.records.count)
        // The same finish from a directory whose evidence is gone fails: it reads the evidence back.
        #expect(throws: EvidenceReadError.self) {
            try live.finish(SampleRun.manifest, status: .complete, endedAt: SampleRun.wallEnd)
        }
    }

    @Test("A scratch directory left by a killed process is removed; one of a live process is kept")
    func abandonedScratch() throws {
        let temporary = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        // A process id that is not in use: the highest one the system could give, or near it.
        var dead: Int32 = 4_194_303
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let abandoned = temporary.appendingPathComponent(ScratchDirectory.prefix + "\(dead)-1")
        let alive = temporary.appendingPathComponent(ScratchDirectory.prefix + "\(getpid())-2")
        for directory in [abandoned, alive] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("part".utf8).write(to: directory.appendingPathComponent(".junit.xml.spool"))
        }
        ScratchDirectory.removeAbandoned(in: temporary)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
    }
}

