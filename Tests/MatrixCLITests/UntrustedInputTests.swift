import Foundation
import Testing
@testable import MatrixCLI
@testable import TestSupport

/// What `verify`, `report`, `compare` and `run --resume` read from a run directory, and what `verify -` and
/// `pki sign -` read from standard input, cannot hang them, exhaust their memory or lead them outside the run.
@Suite("Untrusted run directories and standard input")
struct UntrustedInputTests {
    static func replaceEvidence(of run: URL, with make: (URL) throws -> Void) throws {
        let evidence = run.appendingPathComponent("evidence.jsonl")
        try FileManager.default.removeItem(at: evidence)
        try make(evidence)
    }

    /// Marks a finished run as interrupted, so that `--resume` takes it.
    static func markInterrupted(_ run: URL) throws {
        try VerifyMissingFieldTests.editManifest(run) { manifest in
            manifest["status"] = "interrupted"
            manifest.removeValue(forKey: "endedAt")
        }
    }

    @Test("A FIFO as evidence.jsonl: verify, report, compare and --resume refuse it (65) instead of waiting for a writer",
          .timeLimit(.minutes(5)))
    func fifo() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.replaceEvidence(of: release.run) { #expect(mkfifo($0.path, 0o600) == 0) }
        for command in [["verify", release.run.path], ["report", release.run.path], ["compare", release.run.path, release.run.path]] {
            let result = try await CapturedRun.run(command)
            #expect(result.status == (command[0] == "verify" ? 1 : 65), "\(command[0]): \(result.stderr)")
            #expect(result.stderr.contains("evidence.jsonl is a FIFO, not a regular file; matrix writes only regular files in a run directory"),
                    "\(command[0]): \(result.stderr)")
        }
        try Self.markInterrupted(release.run)
        let resumed = try await CapturedRun.run(["run", "--resume", release.run.path])
        #expect(resumed.status == 65, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("evidence.jsonl is not a regular file (a symbolic link, FIFO or device)"), "\(resumed.stderr)")
    }

    @Test("--resume of a run whose evidence.jsonl links outside it appends nothing there")
    func linkedEvidence() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.markInterrupted(release.run)
        let outside = release.root.appendingPathComponent("outside.jsonl")
        try FileManager.default.moveItem(at: release.run.appendingPathComponent("evidence.jsonl"), to: outside)
        let before = try Data(contentsOf: outside)
        // Half the records: a resumed run would append the rest of the matrix's steps to the file the link names.
        let kept = before.split(separator: 0x0A).prefix(5).map { Data($0) + Data([0x0A]) }.reduce(Data(), +)
        try kept.write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: release.run.appendingPathComponent("evidence.jsonl").path, withDestinationPath: outside.path)
        let result = try await CapturedRun.run(["run", "--resume", release.run.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(try Data(contentsOf: outside) == kept)
    }

    @Test("--resume refuses a run holding links planted at its reports' temporary names, and what they name is left alone")
    func plantedTemporary() async throws {
        let release = try await ReleaseRun.copy()
        defer { release.remove() }
        try Self.markInterrupted(release.run)
        let victim = release.root.appendingPathComponent("victim.txt")
        try Data("keep me\n".utf8).write(to: victim)
        for name in [".junit.xml.tmp", ".report.html.tmp", ".summary.md.tmp", ".run.json.tmp"] {
            try FileManager.default.createSymbolicLink(atPath: release.run.appendingPathComponent(name).path, withDestinationPath: victim.path)
        }
        let result = try await CapturedRun.run(["run", "--resume", release.run.path])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(".junit.xml.tmp is not a regular file (a symbolic link, FIFO or device)"), "\(result.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me\n")
    }

    @Test("verify -, verify --batch - and pki sign - stop an endless standard input at 64 MB (66)", .timeLimit(.minutes(2)),
          arguments: [["verify", "-"], ["verify", "--batch", "-"], ["pki", "sign", "-"]])
    func endlessStandardInput(arguments: [String]) async throws {
        let result = try await MatrixBinary.run(arguments, standardInput: "/dev/zero")
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("standard input is larger than 64 MB"), "\(result.stderr)")
    }
}
