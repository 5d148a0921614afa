import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import MatrixModel
@testable import TestSupport

@Suite("Evidence reader")
struct EvidenceReaderTests {
    private static func lines(_ records: [EvidenceRecord]) throws -> [Data] {
        try records.map { try ReferenceEncoder.encode($0) + Data([0x0A]) }
    }

    private func read(_ data: Data) throws -> (records: [EvidenceRecord], droppedTornLine: Bool) {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("evidence.jsonl")
        try data.write(to: file)
        return try EvidenceReader.read(file)
    }

    @Test("Complete evidence reads back whole, with nothing dropped")
    func complete() throws {
        let result = try read(Self.lines(SampleRun.records).reduce(Data(), +))
        #expect(result.records == SampleRun.records)
        #expect(!result.droppedTornLine)
    }

    @Test("A last line cut short is dropped", arguments: [1, 40, 200])
    func cutShort(keep: Int) throws {
        var lines = try Self.lines(SampleRun.records)
        let last = lines.removeLast()
        let result = try read(lines.reduce(Data(), +) + last.prefix(keep))
        #expect(result.records == Array(SampleRun.records.dropLast()))
        #expect(result.droppedTornLine)
    }

    @Test("A last line that is not a record is dropped even with its newline")
    func invalidLastLine() throws {
        let result = try read(Self.lines(SampleRun.records).reduce(Data(), +) + Data("{\"seq\": 3\n".utf8))
        #expect(result.records == SampleRun.records)
        #expect(result.droppedTornLine)
    }

    @Test("A last line without its newline is dropped, even if its JSON is whole")
    func missingNewline() throws {
        let data = try Self.lines(SampleRun.records).reduce(Data(), +)
        let result = try read(data.dropLast())
        #expect(result.records == Array(SampleRun.records.dropLast()))
        #expect(result.droppedTornLine)
    }

    @Test("Zero bytes left by a crash at the end are dropped")
    func zeroPadding() throws {
        let result = try read(Self.lines(SampleRun.records).reduce(Data(), +) + Data(repeating: 0, count: 512))
        #expect(result.records == SampleRun.records)
        #expect(result.droppedTornLine)
    }

    @Test("A damaged line before the last is corruption, reported with its line number")
    func damagedMiddle() throws {
        var lines = try Self.lines(SampleRun.records)
        lines[1] = Data("not json\n".utf8)
        let error = try #require(throws: EvidenceReadError.self) { try read(lines.reduce(Data(), +)) }
        #expect(error.code == .corrupt)
        #expect(error.line == 2)
        #expect(error.message.contains(":2:"))
    }

    @Test("An empty file has no records and nothing dropped")
    func empty() throws {
        let result = try read(Data())
        #expect(result.records.isEmpty)
        #expect(!result.droppedTornLine)
    }

    @Test("A missing file is unreadable")
    func missing() throws {
        let error = try #require(throws: EvidenceReadError.self) {
            try EvidenceReader.read(URL(fileURLWithPath: "/nonexistent/evidence.jsonl"))
        }
        #expect(error.code == .unreadable)
    }

    @Test("Records spanning many read chunks are read one at a time, in order")
    func manyChunks() throws {
        let many = (1...400).map { index -> EvidenceRecord in
            var record = SampleRun.records[index % SampleRun.records.count]
            record.seq = index
            return record
        }
        let data = try Self.lines(many).reduce(Data(), +)
        #expect(data.count > EvidenceReader.chunkSize * 3)
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("evidence.jsonl")
        try data.write(to: file)
        var seen: [Int] = []
        let dropped = try EvidenceReader.forEachRecord(in: file) { seen.append($0.seq) }
        #expect(seen == Array(1...400))
        #expect(!dropped)
    }

    @Test("Each record's line, found in one pass, reads back as the same record, in any order")
    func linesReadBack() throws {
        let many = (1...400).map { index -> EvidenceRecord in
            var record = SampleRun.records[index % SampleRun.records.count]
            record.seq = index
            return record
        }
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("evidence.jsonl")
        try Self.lines(many).reduce(Data(), +).write(to: file)
        var ranges: [Range<Int64>] = []
        try EvidenceReader.forEachLine(in: file) { record, range in
            #expect(record.seq == ranges.count + 1)
            ranges.append(range)
        }
        #expect(ranges.count == 400)
        let evidence = try EvidenceFile(url: file)
        for (index, range) in ranges.enumerated().reversed() {
            #expect(try evidence.record(at: range) == many[index])
        }
        // A range that is no longer a whole record: the file changed since it was indexed.
        let error = try #require(throws: EvidenceReadError.self) { try evidence.record(at: ranges[0].lowerBound..<(ranges[0].upperBound - 1)) }
        #expect(error.code == .corrupt)
    }
}

