import EvidenceArchive
@testable import EvidenceStore
@testable import FileIO
import Foundation
@testable import MatrixModel
@testable import TestSupport
import Testing

/// Evidence records, run.json and archive.json that name a key twice are refused, with the key and its place:
/// one reader would take the first value and another the last.
@Suite("Evidence and manifests: a key named twice is refused")
struct DuplicateKeyTests {
    private func read(_ data: Data) throws -> (records: [EvidenceRecord], droppedTornLine: Bool) {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("evidence.jsonl")
        try data.write(to: file)
        return try EvidenceReader.read(file)
    }

    /// The record's line with a second `verdict` after the first: `"verdict":"fail"` then `"verdict":"pass"`.
    private static func repeatedVerdict(_ record: EvidenceRecord) throws -> (line: String, column: Int) {
        var text = String(decoding: try ReferenceEncoder.encode(record), as: UTF8.self)
        let verdict = #""verdict":"\#(record.verdict.rawValue)""#
        let range = try #require(text.range(of: verdict))
        text.replaceSubrange(range, with: #""verdict":"fail","verdict":"pass""#)
        let column = text.utf8.distance(from: text.startIndex, to: try #require(text.range(of: #""verdict":"pass""#)).lowerBound) + 1
        return (text, column)
    }

    @Test("A record that repeats verdict is corruption naming the key, its line and column, wherever it is", arguments: [1, 3])
    func repeatedVerdictInEvidence(line: Int) throws {
        var lines = try SampleRun.records.map { String(decoding: try ReferenceEncoder.encode($0), as: UTF8.self) }
        #expect(lines.count > 3)
        let (edited, column) = try Self.repeatedVerdict(SampleRun.records[line])
        lines[line] = edited
        let error = try #require(throws: EvidenceReadError.self) { try read(Data((lines.joined(separator: "\n") + "\n").utf8)) }
        #expect(error.code == .corrupt)
        #expect(error.line == line + 1)
        #expect(error.message.contains("evidence.jsonl:\(line + 1):\(column): duplicate key \"verdict\": each key may appear once in an object (at /verdict)"),
                "\(error.message)")
    }

    @Test("A repeat deep inside a record (an observation's signed item) is refused too")
    func repeatedDeepKey() throws {
        let record = try #require(SampleRun.records.first { !($0.observed?.signedData.isEmpty ?? true) } ?? SampleRun.records.first)
        var text = String(decoding: try ReferenceEncoder.encode(record), as: UTF8.self)
        let range = try #require(text.range(of: #""run":"#))
        text.replaceSubrange(range, with: #""run":"other","run":"#)
        let error = try #require(throws: EvidenceReadError.self) { try read(Data((text + "\n").utf8)) }
        #expect(error.message.contains(#"duplicate key "run""#), "\(error.message)")
    }

    @Test("run.json that repeats a key is not read, and the message names the key and its line")
    func repeatedKeyInRunManifest() throws {
        var manifest = SampleRun.manifest
        manifest.endedAt = "2026-01-15T10:01:35.000Z"
        var text = String(decoding: manifest.encoded(), as: UTF8.self)
        let range = try #require(text.range(of: #"  "endedAt" : "#))
        text.replaceSubrange(range, with: "  \"status\" : \"complete\",\n  \"endedAt\" : ")
        let error = try #require(throws: EvidenceReadError.self) { try RunManifest.decode(Data(text.utf8), path: "run.json") }
        #expect(error.code == .unsupportedManifest)
        // The second "status" is the repeat: the written one, after the inserted one (keys are sorted).
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).lastIndex { $0.hasPrefix(#"  "status" : "#) }.map { $0 + 1 }
        #expect(error.message.contains("run.json is not a valid run manifest: run.json:\(try #require(line)):3: duplicate key \"status\""), "\(error.message)")
    }

    @Test("archive.json that repeats a key is not an archive manifest")
    func repeatedKeyInArchiveManifest() throws {
        let json = #"{"archiveVersion":1,"toolVersion":"t","createdAt":"c","runId":"r","environment":"local","status":"complete","directory":"r","directory":"../x","files":{}}"#
        let error = try #require(throws: RunArchiveError.self) { try ArchiveManifest.decode(Data(json.utf8), path: "archive.json") }
        #expect(error.code == .notAnArchive)
        #expect(error.message.contains(#"archive.json:1:125: duplicate key "directory""#), "\(error.message)")
    }

    @Test("A whole last line that is not a record is corruption, not a torn line; a cut-short one is still dropped")
    func wholeLastLine() throws {
        let lines = try SampleRun.records.map { String(decoding: try ReferenceEncoder.encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
        let error = try #require(throws: EvidenceReadError.self) { try read(Data((lines + #"{"seq": 5}"# + "\n").utf8)) }
        let last = SampleRun.records.count + 1
        #expect(error.line == last)
        #expect(error.message.contains("evidence.jsonl:\(last):1: missing key"), "\(error.message)")
        let torn = try read(Data((lines + #"{"seq": 5, "ver"#).utf8))
        #expect(torn.droppedTornLine)
        #expect(torn.records.count == SampleRun.records.count)
    }
}
