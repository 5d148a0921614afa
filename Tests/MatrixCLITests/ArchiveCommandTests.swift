import Foundation
import Testing
@testable import TestSupport

/// `matrix archive` and `matrix verify ARCHIVE`: a run packed, checked, and caught after tampering.
@Suite("matrix archive")
struct ArchiveCommandTests {
    /// Unpacks `archive`, lets `change` alter the unpacked tree (archive.json and the run directory), and
    /// packs it again under the same name.
    func repack(_ archive: URL, runName: String, _ change: (URL) throws -> Void) async throws {
        let scratch = try MatrixBinary.scratchDirectory("matrix-repack")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await tar(["-xzf", archive.path, "-C", scratch.path])
        try change(scratch.appendingPathComponent(runName))
        try FileManager.default.removeItem(at: archive)
        try await tar(["-czf", archive.path, "-C", scratch.path, "archive.json", runName])
    }

    @Test("archive then verify passes; one changed byte, a removed file and an added file each fail and are named")
    func archiveAndTamper() async throws {
        let release = try await ReleaseRun.make()
        defer { release.remove() }
        let archive = release.root.appendingPathComponent("run.tar.gz")
        let runName = release.run.lastPathComponent

        let packed = try await CapturedRun.run(["archive", release.run.path, "--out", archive.path])
        #expect(packed.status == 0, "\(packed.stderr)")
        #expect(packed.stderr.contains("archived run \(runName) (5 files, bundle id com.example.storekitmatrix)"))
        let clean = try await CapturedRun.run(["verify", archive.path, "--verbose"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.contains("archive.json  ok        run.json"))
        // The run's matrix, found from here, is what the bundle id comes from; archive.json's must agree with it.
        #expect(clean.stderr.contains("note: bundleId com.example.storekitmatrix from "), "\(clean.stderr)")
        #expect(clean.stderr.contains("is unaltered: 5 files match their SHA-256"))

        let cases: [(String, (URL) throws -> Void, [String])] = [
            ("one byte of evidence", { try Tamper.flipSignatureByte(in: $0.appendingPathComponent("evidence.jsonl")) },
             ["archive.json  ALTERED   evidence.jsonl", "run.json      ALTERED   evidence.jsonl", "altered: evidence.jsonl", "VERIFICATION_FAILURE"]),
            ("a removed file", { try FileManager.default.removeItem(at: $0.appendingPathComponent("report.html")) },
             ["archive.json  MISSING   report.html", "missing: report.html"]),
            ("an added file", { try "x".write(to: $0.appendingPathComponent("extra.txt"), atomically: true, encoding: .utf8) },
             ["archive.json  EXTRA     extra.txt", "extra: extra.txt"]),
            ("a changed run.json", { url in
                let manifest = url.appendingPathComponent("run.json")
                let text = try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(of: "\"complete\"", with: "\"interrupted\"")
                try text.write(to: manifest, atomically: true, encoding: .utf8)
             }, ["archive.json  ALTERED   run.json", "altered: run.json"]),
        ]
        for (name, change, expected) in cases {
            let copy = release.root.appendingPathComponent("tampered.tar.gz")
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(at: archive, to: copy)
            try await repack(copy, runName: runName, change)
            let result = try await CapturedRun.run(["verify", copy.path])
            #expect(result.status == 1, "\(name)")
            let output = result.stdout + result.stderr
            for text in expected {
                #expect(output.contains(text), "\(name): \(text) missing from:\n\(output)")
            }
        }
    }

    @Test("An existing output is kept unless --force; a run that has not ended is refused unless --allow-running")
    func refusals() async throws {
        let release = try await ReleaseRun.make()
        defer { release.remove() }
        let archive = release.root.appendingPathComponent("run.tar.gz")
        try Data("keep me".utf8).write(to: archive)
        let refused = try await CapturedRun.run(["archive", release.run.path, "--out", archive.path])
        #expect(refused.status == 64, "an existing FILE without --force is a usage error, as for init and merge")
        #expect(refused.stderr.contains("already exists; choose another file, or pass --force"))
        #expect(try Data(contentsOf: archive) == Data("keep me".utf8))
        let forced = try await CapturedRun.run(["archive", release.run.path, "--out", archive.path, "--force"])
        #expect(forced.status == 0)
        #expect(try await CapturedRun.run(["verify", archive.path]).status == 0)

        // A run that has not ended: status interrupted and no endedAt, as run.json says while a run is in progress.
        let manifest = release.run.appendingPathComponent("run.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        object["status"] = "interrupted"
        object.removeValue(forKey: "endedAt")
        try JSONSerialization.data(withJSONObject: object).write(to: manifest)
        let other = release.root.appendingPathComponent("running.tar.gz")
        let running = try await CapturedRun.run(["archive", release.run.path, "--out", other.path])
        #expect(running.status == 65)
        #expect(running.stderr.contains("has not ended (run.json has no endedAt)"))
        #expect(!FileManager.default.fileExists(atPath: other.path))
        let allowed = try await CapturedRun.run(["archive", release.run.path, "--out", other.path, "--allow-running"])
        #expect(allowed.status == 0)
        #expect(allowed.stderr.contains("warning: run"))
    }

    @Test("An archive whose members would escape the unpack directory is refused with 65")
    func unsafeArchive() async throws {
        let scratch = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("payload.txt")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        let archive = scratch.appendingPathComponent("evil.tar.gz")
        try await tar(["-czPf", archive.path, file.path])
        let result = try await CapturedRun.run(["verify", archive.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("would be written outside the directory it is unpacked into"))
        let notTar = scratch.appendingPathComponent("fake.tar.gz")
        try Data([0x1F, 0x8B, 0x00, 0x01]).write(to: notTar)
        let fake = try await CapturedRun.run(["verify", notTar.path])
        #expect(fake.status == 65)
        #expect(fake.stderr.contains("is not a readable gzip tar archive"))
    }

    @Test("An archive holding a member twice, or a symbolic link, is refused with 65: what it holds would depend on the reader")
    func ambiguousArchive() async throws {
        let scratch = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let content = scratch.appendingPathComponent("content")
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
        try "{}".write(to: content.appendingPathComponent("archive.json"), atomically: true, encoding: .utf8)
        let twice = scratch.appendingPathComponent("twice.tar.gz")
        try await tar(["-czf", twice.path, "-C", content.path, "archive.json", "archive.json"])
        let duplicate = try await CapturedRun.run(["verify", twice.path])
        #expect(duplicate.status == 65)
        // GNU tar writes the second copy as a hard link to the first; two plain copies are TarReaderTests'.
        #expect(duplicate.stderr.contains(#"has a member "archive.json" that is a hard link, neither a file nor a directory"#), "\(duplicate.stderr)")

        try FileManager.default.createSymbolicLink(atPath: content.appendingPathComponent("evidence.jsonl").path, withDestinationPath: "/etc/hostname")
        let linked = scratch.appendingPathComponent("link.tar.gz")
        try await tar(["-czf", linked.path, "-C", content.path, "archive.json", "evidence.jsonl"])
        let link = try await CapturedRun.run(["verify", linked.path])
        #expect(link.status == 65)
        #expect(link.stderr.contains(#""evidence.jsonl" that is a symbolic link, neither a file nor a directory"#), "\(link.stderr)")
    }
}
