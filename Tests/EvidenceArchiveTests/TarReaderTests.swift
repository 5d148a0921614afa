@testable import EvidenceArchive
@testable import EvidenceStore
import Foundation
@testable import TestSupport
import Testing

/// The tar reader behind `matrix verify ARCHIVE` writes regular files and directories only, inside the directory
/// it is given, within its limits; everything else refuses the archive with the member named.
@Suite("Tar reader")
struct TarReaderTests {
    static let small = ArchiveLimits(maximumMembers: 4, maximumMemberSize: 1024, maximumTotalSize: 2048, maximumDuration: .seconds(600))

    /// Unpacks `tar` into a fresh directory; returns the member names, or the error with the directory's files.
    static func unpack(_ tar: TarBuilder, limits: ArchiveLimits = small, interruption: Interruption = .never) throws
        -> (names: [String]?, error: RunArchiveError?, files: [String]) {
        let root = try Scratch.directory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("unpacked")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var reader = TarReader(source: MemoryTarSource(bytes: tar.bytes), directory: directory, limits: limits,
                               interruption: interruption, display: "a.tar.gz")
        let files = { (try? FileManager.default.subpathsOfDirectory(atPath: directory.path))?.sorted() ?? [] }
        do {
            let names = try reader.unpack()
            return (names, nil, files())
        } catch {
            return (nil, error, files())
        }
    }

    @Test("Files, directories, GNU long names and pax paths are unpacked as named")
    func unpacks() throws {
        var tar = TarBuilder()
        tar.entry("run/", type: "5")
        tar.entry("./run/run.json", data: Array("{}".utf8))
        let long = "run/" + String(repeating: "n", count: 150)
        tar.entry("././@LongLink", type: "L", data: Array(long.utf8) + [0])
        tar.entry(String(long.prefix(100)), data: [0x41])
        tar.pax([("path", "run/pax-named.txt"), ("mtime", "1.5")])
        tar.entry("ignored", data: [0x42, 0x43])
        tar.end()
        let result = try Self.unpack(tar)
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.names == ["run", "run/run.json", long, "run/pax-named.txt"])
        #expect(result.files == ["run", long, "run/pax-named.txt", "run/run.json"].sorted())
    }

    @Test("A member is refused from its header when it is larger than a member may be, before any byte is written")
    func memberTooLarge() throws {
        var tar = TarBuilder()
        tar.entry("bomb", size: 1 << 40)   // a terabyte declared; no data follows
        let result = try Self.unpack(tar)
        #expect(result.error?.code == .limitExceeded)
        #expect(result.error?.message.contains("has a member \"bomb\" of 1099511627776 bytes, more than the 1024 bytes a member may have") == true,
                "\(String(describing: result.error))")
        #expect(result.files.isEmpty)
        var huge = TarBuilder()
        huge.entry("bomb", size: 1 << 36)  // 64 GiB, written in base-256
        #expect(try Self.unpack(huge).error?.code == .limitExceeded)
    }

    @Test("The total size and the member count are capped")
    func totals() throws {
        var total = TarBuilder()
        for index in 0..<3 { total.entry("f\(index)", data: [UInt8](repeating: 1, count: 1000)) }
        total.end()
        let big = try Self.unpack(total)
        #expect(big.error?.code == .limitExceeded)
        #expect(big.error?.message.contains("holds more than 2048 bytes in all") == true)
        #expect(big.files == ["f0", "f1"])
        var many = TarBuilder()
        for index in 0..<5 { many.entry("f\(index)") }
        many.end()
        let count = try Self.unpack(many)
        #expect(count.error?.message.contains("has more than 4 members") == true, "\(String(describing: count.error))")
    }

    @Test("Unpacking past its deadline, or after an interruption, stops")
    func time() throws {
        var tar = TarBuilder()
        tar.entry("f", data: [1])
        tar.end()
        var late = Self.small
        late.maximumDuration = .zero
        #expect(try Self.unpack(tar, limits: late).error?.message.contains("took longer than") == true)
        let interruption = Interruption()
        interruption.interrupt()
        #expect(try Self.unpack(tar, interruption: interruption).error?.code == .interrupted)
    }

    @Test("Links, devices, FIFOs and sparse files are refused, by type or by pax key", arguments: [
        ("1", "a hard link"), ("2", "a symbolic link"), ("3", "a device"), ("4", "a device"), ("6", "a FIFO"), ("S", "a sparse file"),
        ("K", "a symbolic link"), ("V", "of tar type V"),
    ])
    func types(type: String, what: String) throws {
        var tar = TarBuilder()
        tar.entry("evidence.jsonl", type: Character(type), link: "/etc/passwd")
        tar.end()
        let result = try Self.unpack(tar)
        #expect(result.error?.code == .unsafeEntry)
        #expect(result.error?.message.contains("that is \(what)") == true, "\(String(describing: result.error))")
        var sparse = TarBuilder()
        sparse.pax([("GNU.sparse.major", "1"), ("GNU.sparse.realsize", "10737418240")])
        sparse.entry("evidence.jsonl", data: [0])
        #expect(try Self.unpack(sparse).error?.message.contains("is a sparse file") == true)
    }

    @Test("Names that leave the directory, repeat an earlier member, hold a NUL or nest under a file are refused", arguments: [
        ["/etc/passwd"], ["run/../../x"], ["a", "./a"], ["a", "a/b"], ["../x"],
    ])
    func names(names: [String]) throws {
        var tar = TarBuilder()
        for name in names { tar.entry(name, data: [1]) }
        tar.end()
        let result = try Self.unpack(tar)
        #expect(result.error?.code == .unsafeEntry, "\(names)")
        #expect(result.files.allSatisfy { !$0.contains("..") })
        var nul = TarBuilder()
        nul.pax([("path", "run\u{0}/x")])
        nul.entry("x", data: [1])
        #expect(try Self.unpack(nul).error?.message.contains("holds a NUL") == true)
    }

    @Test("A wrong checksum, a stream cut short, data after the end or headers without a member are not an archive")
    func damaged() throws {
        var tar = TarBuilder()
        tar.entry("f", data: [1, 2, 3])
        tar.end()
        var bytes = tar.bytes
        bytes[0] ^= 0x01
        let checksum = try Self.unpack(TarBuilder.from(bytes))
        #expect(checksum.error?.message.contains("has a header whose checksum is wrong") == true)
        let cut = try Self.unpack(TarBuilder.from(Array(tar.bytes.prefix(600))))
        #expect(cut.error?.message.contains("ends in the middle of a member") == true, "\(String(describing: cut.error))")
        let trailing = try Self.unpack(TarBuilder.from(tar.bytes + [0x41]))
        #expect(trailing.error?.message.contains("holds data after the end of the archive") == true)
        var headers = TarBuilder()
        for _ in 0..<10 { headers.pax([("comment", "x")]) }
        #expect(try Self.unpack(headers).error?.message.contains("holds header after header without a member") == true)
        #expect(try Self.unpack(TarBuilder()).error?.message.contains("ends without the end-of-archive marker") == true)
    }

    @Test("A pax record whose length is Int.max is not a list of records, not an overflow (a tester's crash)")
    func paxLengthOverflow() throws {
        // A second record of 24 bytes ("24 k=" and 18 characters), rewritten to claim Int.max bytes in as many.
        var tar = TarBuilder()
        tar.pax([("a", "b"), ("k", String(repeating: "v", count: 18))])
        tar.entry("f", data: [1])
        tar.end()
        var bytes = tar.bytes
        let original = Array("24 k=".utf8)
        guard let start = (0 ..< bytes.count - original.count).first(where: { Array(bytes[$0 ..< $0 + original.count]) == original }) else {
            Issue.record("no second pax record in the builder's output")
            return
        }
        let forged = Array("9223372036854775807 k=v\n".utf8)
        #expect(forged.count == 24)
        bytes.replaceSubrange(start ..< start + 24, with: forged)
        let result = try Self.unpack(TarBuilder.from(bytes))
        #expect(result.error?.message.contains("has a pax extended header that is not a list of records") == true, "\(String(describing: result.error))")
    }

    @Test("A base-256 mark in an 8-byte field (the checksum) is refused, not read past the field's start (a fuzzer's crash)")
    func base256InShortField() throws {
        var tar = TarBuilder()
        tar.entry("f", data: [1, 2, 3])
        tar.end()
        var bytes = tar.bytes
        bytes[148] = 0x80
        let result = try Self.unpack(TarBuilder.from(bytes))
        #expect(result.error?.message.contains("has a checksum field too large for any archive") == true, "\(String(describing: result.error))")
    }
}

extension TarBuilder {
    /// A builder holding `bytes` as they are.
    static func from(_ bytes: [UInt8]) -> TarBuilder {
        var builder = TarBuilder()
        builder.append(bytes)
        return builder
    }
}
