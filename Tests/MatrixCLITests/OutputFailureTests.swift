import Foundation
import Testing
@testable import MatrixCLI
@testable import TestSupport

/// Output that cannot be written: a full disk, a closed descriptor, a reader that went away. Never a crash;
/// a command whose result did not reach stdout exits 74; a run goes on recording its evidence.
@Suite("Output that cannot be written")
struct OutputFailureTests {
    let release = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json")

    @Test("a result that cannot be written to stdout (a full disk) exits 74 with a message")
    func fullStdout() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await CommandHarness.run(["validate", "--format", "json", release.path], stdout: full)
        #expect(result.status == 74)
        #expect(result.stderr.contains("cannot write to standard output: No space left on device"))
        let faults = try await CommandHarness.run(["faults"], stdout: full)
        #expect(faults.status == 74)
        // Also when the command had more to say: diagnostics of an invalid matrix that never reached stdout.
        let directory = try CommandHarness.directoryWithCatalog()
        defer { try? FileManager.default.removeItem(at: directory) }
        let invalid = directory.appendingPathComponent("bad.json")
        try #"{"schemaVersion": 1, "name": "x", "app": {"bundleId": "com.example.x"}, "catalog": "Products.storekit", "tiers": {}, "accounts": {}, "cases": []}"#
            .write(to: invalid, atomically: true, encoding: .utf8)
        let lost = try await CommandHarness.run(["validate", "--format", "json", invalid.path], stdout: full)
        #expect(lost.status == 74 && lost.stderr.contains("cannot write to standard output"), "\(lost.stderr)")
    }

    @Test("resume hints paste into a shell: paths with spaces or quotes are quoted, a guided run's files are named again")
    func resumeHint() throws {
        #expect(RunCommand.shellWord("reports/local/x/20261129T230812Z-95ce") == "reports/local/x/20261129T230812Z-95ce")
        #expect(RunCommand.shellWord("my runs/it's") == #"'my runs/it'\''s'"#)
        #expect(RunCommand.shellWord("") == "''")
        let args = try Arguments(["--answers", "a b.jsonl", "--accounts", "acc.json"], options: RunCommand.spec.options)
        #expect(RunCommand.resumeCommand(URL(fileURLWithPath: "/tmp/o p/run"), args: args)
                == "matrix run --resume '/tmp/o p/run' --answers 'a b.jsonl' --accounts acc.json")
    }

    /// Runs `script` in `sh` with `$M` the built binary; returns the exit status and stderr.
    func shell(_ script: String, in directory: URL) async throws -> (status: Int32, stderr: String) {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: directory,
                                                environment: ["M": MatrixBinary.url.path, "PATH": "/usr/bin:/bin", "NO_COLOR": "1"])
        return (result.exit.status, result.stderr)
    }

    @Test("a closed stdout is an error for a command that prints its result; a closed stderr or a reader that left does not stop a run")
    func closedDescriptors() async throws {
        let dir = try MatrixBinary.scratchDirectory("matrix-output")
        defer { try? FileManager.default.removeItem(at: dir) }
        let version = try await shell(#""$M" --version >&-"#, in: dir)
        #expect(version.status == 74 && version.stderr.contains("cannot write to standard output: Bad file descriptor"), "\(version)")
        let signed = try await shell(#"echo '{"a": 1}' | "$M" pki sign - >&-"#, in: dir)
        #expect(signed.status == 74 && signed.stderr.contains("cannot write to standard output: Bad file descriptor"), "\(signed)")

        // Every record and report is written, and nothing lands in a file that took the closed descriptor.
        let quiet = try await shell(#""$M" run "\#(release.path)" --out quiet --quiet 2>&-"#, in: dir)
        #expect(quiet.status == 0, "\(quiet)")
        let run = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("quiet")).first)
        let verified = try await MatrixBinary.run(["verify", run.path, "--quiet"])
        #expect(verified.status == 0, "\(verified.stderr)")
        let report = try await shell(#""$M" report "\#(run.path)" >&-"#, in: dir)
        #expect(report.status == 74 && report.stderr.contains("cannot write to standard output: Bad file descriptor"), "\(report)")

        // `| head -1` leaves after the first progress line: the run still completes, silently.
        let cut = try await shell(#""$M" run "\#(release.path)" --out cut --jobs 2 2>&1 | head -n 1 >/dev/null; echo "$?" >/dev/null"#, in: dir)
        #expect(cut.status == 0)
        let cutRun = try #require(MatrixBinary.runDirectories(under: dir.appendingPathComponent("cut")).first)
        let manifest = try String(contentsOf: cutRun.appendingPathComponent("run.json"), encoding: .utf8)
        #expect(manifest.contains(#""status" : "complete""#))
        #expect(try String(contentsOf: cutRun.appendingPathComponent("evidence.jsonl"), encoding: .utf8).split(separator: "\n").count == 153)
    }
}
