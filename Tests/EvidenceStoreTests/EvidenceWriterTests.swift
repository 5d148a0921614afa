import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import MatrixEngine
@testable import MatrixModel
@testable import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Evidence writer")
struct EvidenceWriterTests {
    private func newRun() throws -> (RunDirectory, URL) {
        let root = try Scratch.directory()
        return (try RunDirectory.create(root: root, environment: "local", build: "local", runID: "run"), root)
    }

    @Test("Each appended record is one compact JSON line with sorted keys, in the file when append returns")
    func appendsLines() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory)
        for (index, record) in SampleRun.records.enumerated() {
            try await writer.append(record)
            let text = try String(contentsOf: directory.evidenceURL, encoding: .utf8)
            #expect(text.hasSuffix("\n"))
            #expect(text.split(separator: "\n").count == index + 1)
        }
        #expect(await writer.appendedCount == SampleRun.records.count)
        let lines = try String(contentsOf: directory.evidenceURL, encoding: .utf8).split(separator: "\n")
        #expect(lines[0].hasPrefix(#"{"account":{"alias":"fresh","#))
        #expect(lines[0].contains(#""case":"fresh-purchase/pro""#))
        #expect(!lines[0].contains(#"\/"#))
        #expect(!lines[0].contains("\n"))
        let decoded = try lines.map { try JSONDecoder().decode(EvidenceRecord.self, from: Data($0.utf8)) }
        #expect(decoded == SampleRun.records)
    }

    @Test("Records prepared and appended together, or unprepared, are the same lines as records appended one by one")
    func appendsTogether() async throws {
        let (one, oneRoot) = try newRun()
        let (together, togetherRoot) = try newRun()
        defer {
            try? FileManager.default.removeItem(at: oneRoot)
            try? FileManager.default.removeItem(at: togetherRoot)
        }
        let single = try EvidenceWriter(directory: one)
        for record in SampleRun.records { try await single.append(record) }
        let batched = try EvidenceWriter(directory: together)
        try await batched.append(batched.prepare(Array(SampleRun.records.prefix(2))))
        try await batched.append(batched.prepare([]))
        try await batched.append(PreparedEvidence(records: Array(SampleRun.records.dropFirst(2))))
        #expect(await batched.appendedCount == SampleRun.records.count)
        let expected = try Data(contentsOf: one.evidenceURL)
        #expect(try Data(contentsOf: together.evidenceURL) == expected)
        #expect(String(decoding: expected, as: UTF8.self).split(separator: "\n").count == SampleRun.records.count)
    }

    @Test("A second writer cannot take over an existing evidence file")
    func refusesExistingFile() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory)
        try await writer.append(SampleRun.records[0])
        let error = try #require(throws: EvidenceWriteError.self) { try EvidenceWriter(directory: directory) }
        #expect(error.code == .cannotWrite)
        #expect(try EvidenceReader.read(directory.evidenceURL).records.count == 1)
    }

    @Test("Appending after close throws writerClosed")
    func closed() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory)
        await writer.close()
        let error = await #expect(throws: EvidenceWriteError.self) { try await writer.append(SampleRun.records[0]) }
        #expect(error?.code == .writerClosed)
    }

    @Test("A run directory that vanished gives a cannotWrite error that says what to check")
    func missingDirectory() throws {
        let (directory, root) = try newRun()
        try FileManager.default.removeItem(at: root)
        let error = try #require(throws: EvidenceWriteError.self) { try EvidenceWriter(directory: directory) }
        #expect(error.code == .cannotWrite)
        #expect(error.systemError == ENOENT)
        #expect(error.message.contains(directory.evidenceURL.path))
        #expect(error.message.contains("check that the reports directory exists"))
    }

    @Test("A full disk stops the writer with an error saying to free space",
          .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func fullDisk() async throws {
        let fd = open("/dev/full", O_WRONLY)
        try #require(fd >= 0)
        let writer = EvidenceWriter(url: URL(fileURLWithPath: "/dev/full"), fd: fd, length: 0)
        let error = await #expect(throws: EvidenceWriteError.self) { try await writer.append(SampleRun.records[0]) }
        #expect(error?.code == .cannotWrite)
        #expect(error?.systemError == ENOSPC)
        #expect(error?.message.contains("free some disk space") == true)
        let again = await #expect(throws: EvidenceWriteError.self) { try await writer.append(SampleRun.records[1]) }
        #expect(again?.code == .writerClosed)
        #expect(await writer.appendedCount == 0)
    }

    @Test("resuming refuses evidence whose seq numbers jump or repeat, or that records a step twice", arguments: [
        (Int.max, "seq 9223372036854775807 where 3 was expected"),
        (2, "seq 2 where 3 was expected"),
    ])
    func resumeRefusesEditedEvidence(seq: Int, words: String) async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory)
        for record in SampleRun.records.prefix(2) { try await writer.append(record) }
        var edited = SampleRun.records[2]
        edited.seq = seq
        try await writer.append(edited)
        await writer.close()
        #expect {
            _ = try EvidenceWriter.resuming(directory: directory)
        } throws: { error in
            guard let error = error as? EvidenceReadError else { return false }
            return error.code == .corrupt && error.line == 3 && error.message.contains(words)
        }
    }

    @Test("Resuming cuts a torn last line and appends after the last complete record")
    func resume() async throws {
        let (directory, root) = try newRun()
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = try EvidenceWriter(directory: directory)
        for record in SampleRun.records.prefix(3) { try await writer.append(record) }
        await writer.close()
        let handle = try FileHandle(forWritingTo: directory.evidenceURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"account":{"alias":"fre"#.utf8))
        try handle.close()

        let (resumed, recorded, dropped) = try EvidenceWriter.resuming(directory: directory)
        var expected = RecordedEvidence()
        for record in SampleRun.records.prefix(3) { try expected.add(record, from: directory.evidenceURL.path) }
        #expect(recorded == expected)
        #expect(recorded.count == 3)
        #expect(recorded.lastSeq == SampleRun.records[2].seq)
        #expect(dropped)
        try await resumed.append(SampleRun.records[3])
        await resumed.close()
        let (all, droppedNow) = try EvidenceReader.read(directory.evidenceURL)
        #expect(all == Array(SampleRun.records.prefix(4)))
        #expect(!droppedNow)
    }
}
