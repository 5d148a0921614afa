import Foundation
import Testing
@testable import EvidenceStore
@testable import FileIO
@testable import MatrixModel
@testable import TestSupport

/// A run directory is read as archives are: its files must be regular files, never reached through a link, and
/// no line of its evidence is held beyond a cap, so a FIFO, a device, a link or a sparse file can neither hang a
/// reader, exhaust its memory, nor lead it outside the directory.
@Suite("Untrusted run directories")
struct UntrustedRunDirectoryTests {
    /// A run directory holding the sample records, whose `evidence.jsonl` `replace` then swaps for something else.
    static func run(_ replace: (URL) throws -> Void = { _ in }) throws -> (root: URL, run: RunDirectory) {
        let root = try Scratch.directory()
        let run = RunDirectory(url: root)
        let lines = try SampleRun.records.map { try ReferenceEncoder.encode($0) + Data([0x0A]) }.reduce(Data(), +)
        try lines.write(to: run.evidenceURL)
        try run.writeManifest(SampleRun.manifest)
        try replace(run.evidenceURL)
        return (root, run)
    }

    static func fifo(_ url: URL) throws {
        try FileManager.default.removeItem(at: url)
        #expect(mkfifo(url.path, 0o600) == 0)
    }

    @Test("A FIFO as evidence.jsonl is refused at once, where reading it waited for a writer forever", .timeLimit(.minutes(1)))
    func fifoEvidence() throws {
        let (root, run) = try Self.run(Self.fifo)
        defer { try? FileManager.default.removeItem(at: root) }
        let error = try #require(throws: EvidenceReadError.self) { try EvidenceReader.read(run.evidenceURL) }
        #expect(error.code == .notRegularFile)
        #expect(error.message.contains("evidence.jsonl is a FIFO, not a regular file; matrix writes only regular files"), "\(error.message)")
        #expect(throws: EvidenceReadError.self) { try EvidenceFile(url: run.evidenceURL) }
    }

    @Test("A device as evidence.jsonl, through a link or not, is refused instead of read without end", .timeLimit(.minutes(1)))
    func deviceEvidence() throws {
        let (root, run) = try Self.run { url in
            try FileManager.default.removeItem(at: url)
            try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/dev/zero")
        }
        defer { try? FileManager.default.removeItem(at: root) }
        let error = try #require(throws: EvidenceReadError.self) { try EvidenceReader.read(run.evidenceURL) }
        #expect(error.code == .notRegularFile)
        #expect(error.message.contains("is a symbolic link, not a regular file"), "\(error.message)")
        let device = try #require(throws: InputFile.Unreadable.self) { try InputFile.read("/dev/zero") }
        #expect(device.reason == "is a device, not a regular file")
        #expect(device.isNotRegularFile)
    }

    @Test("A link to evidence outside the run is not followed")
    func linkedEvidence() throws {
        let (root, run) = try Self.run()
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = root.appendingPathComponent("elsewhere.jsonl")
        try FileManager.default.moveItem(at: run.evidenceURL, to: outside)
        try FileManager.default.createSymbolicLink(atPath: run.evidenceURL.path, withDestinationPath: outside.path)
        #expect(throws: EvidenceReadError.self) { try EvidenceReader.read(run.evidenceURL) }
        #expect(throws: EvidenceWriteError.self) { try Digests.sha256.hexDigest(ofFileAt: run.evidenceURL) }
        let error = try #require(throws: EvidenceReadError.self) { try EvidenceWriter.resuming(directory: run) }
        #expect(error.code == .notRegularFile)
        #expect(error.message.contains("evidence.jsonl is not a regular file (a symbolic link, FIFO or device)"), "\(error.message)")
    }

    @Test("run.json that is a FIFO or a link is refused", .timeLimit(.minutes(1)))
    func manifest() throws {
        let (root, run) = try Self.run()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.fifo(run.manifestURL)
        let fifo = try #require(throws: EvidenceReadError.self) { try run.readManifest() }
        #expect(fifo.code == .notRegularFile)
        try FileManager.default.removeItem(at: run.manifestURL)
        try FileManager.default.createSymbolicLink(atPath: run.manifestURL.path, withDestinationPath: "/dev/zero")
        let link = try #require(throws: EvidenceReadError.self) { try run.readManifest() }
        #expect(link.code == .notRegularFile)
    }

    @Test("A sparse evidence file of one 100 MB line is refused at the line cap, not read whole")
    func endlessLine() throws {
        let (root, run) = try Self.run { url in
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 100 * 1024 * 1024)
            try handle.close()
        }
        defer { try? FileManager.default.removeItem(at: root) }
        let error = try #require(throws: EvidenceReadError.self) { try EvidenceReader.read(run.evidenceURL) }
        #expect(error.code == .lineTooLong)
        #expect(error.line == SampleRun.records.count + 1)
        #expect(error.message.hasSuffix(":\(SampleRun.records.count + 1): the line is longer than 32 MB, more than any evidence record matrix "
                                        + "writes; the file was not written by matrix"), "\(error.message)")
    }

    @Test("A link planted at a report's temporary name is replaced, and the file it names is left alone")
    func plantedTemporary() throws {
        let (root, run) = try Self.run()
        defer { try? FileManager.default.removeItem(at: root) }
        let victim = root.appendingPathComponent("victim.txt")
        try Data("keep me\n".utf8).write(to: victim)
        let temporary = run.url.appendingPathComponent(".summary.md.tmp")
        try FileManager.default.createSymbolicLink(atPath: temporary.path, withDestinationPath: victim.path)
        try run.write(Data("# summary\n".utf8), named: "summary.md")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
        #expect(try String(contentsOf: run.url.appendingPathComponent("summary.md"), encoding: .utf8) == "# summary\n")
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
    }

    @Test("Standard input and files are capped alike: a larger input is refused, not held")
    func cap() throws {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("big")
        try Data(count: 2048).write(to: file)
        let error = try #require(throws: InputFile.Unreadable.self) { try InputFile.read(file.path, maximumSize: 1024) }
        #expect(error.reason == "is larger than 1024 bytes")
        // A pipe fed more than the cap, as an endless standard input is; what is left is drained before closing,
        // so the feeder never writes to a closed pipe.
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        DispatchQueue.global().async {
            let chunk = [UInt8](repeating: 0x41, count: 4096)
            for _ in 0..<512 { _ = chunk.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } }
            close(writer)
        }
        let endless = try #require(throws: InputFile.Unreadable.self) { try InputFile.readAll(reader, maximumSize: 1 << 20) }
        var sink = [UInt8](repeating: 0, count: 65536)
        while sink.withUnsafeMutableBytes({ read(reader, $0.baseAddress, $0.count) }) > 0 {}
        close(reader)
        #expect(endless.reason == "is larger than 1 MB")
    }
}
