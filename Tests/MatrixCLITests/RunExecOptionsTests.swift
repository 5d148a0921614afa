import Foundation
import Testing
import MatrixCLI
import TestSupport

/// `matrix run --env exec` options and the environment-unavailable exit, in process.
@Suite("matrix run --env exec: options and an unavailable driver")
struct RunExecOptionsTests {
    let matrix = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
    let drivers = Fixtures.packageDirectory.appendingPathComponent("Tests/ExecEnvironmentTests/Drivers")

    /// Runs the command line in process; returns the exit code and what was written on stderr.
    func run(_ arguments: [String]) async throws -> (Int32, String) {
        let err = Pipe()
        let out = try #require(FileHandle(forWritingAtPath: "/dev/null"))
        let console = Console(environment: ["NO_COLOR": "1"], out: out, err: err.fileHandleForWriting)
        let code = await HeavyWork.run { await MatrixCommand.main(["matrix"] + arguments, console: console) }
        try err.fileHandleForWriting.close()
        return (code, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test("usage errors exit 64 with a sentence", arguments: [
        (["--env", "exec"], "--env exec needs --driver CMD"),
        (["--driver", "x"], "--driver needs --env exec"),
        (["--step-timeout", "2"], "--step-timeout needs --env exec"),
        (["--env", "exec", "--driver", "'unterminated"], "--driver: unterminated single quote in the driver command"),
        (["--env", "exec", "--driver", "x", "--step-timeout", "0"], "--step-timeout must be a number of seconds above 0"),
        (["--env", "exec", "--driver", "x", "--app-fault", "pendingUnlocks"], "--app-fault applies to --env local"),
        (["--env", "sandbx"], #"--env must be one of local, exec, sandbox, testflight, server, not "sandbx"; did you mean sandbox?"#),
        (["--signed-environment", "Production"], "--signed-environment Production needs app.appAppleId in the matrix"),
    ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) async throws {
        let (code, stderr) = try await run(["run", matrix] + arguments)
        #expect(code == 64)
        #expect(stderr.contains("error: " + message), "stderr: \(stderr)")
    }

    @Test("a --jobs that is not a number from 1 to 256: exit 64 and no run directory", arguments: ["0", "abc", "999"])
    func badJobsLeaveNothing(jobs: String) async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, stderr) = try await run(["run", matrix, "--out", out.path, "--jobs", jobs])
        #expect(code == 64)
        #expect(stderr.contains("--jobs"), "stderr: \(stderr)")
        #expect(MatrixBinary.runDirectories(under: out).isEmpty)
    }

    // A run that hangs instead of ending exceeds the time limit (generous for a loaded machine).
    @Test("a driver that never answers initialize: exit 69 within the step timeout, a clear message, no run directory", .timeLimit(.minutes(5)))
    func silentDriverIsUnavailable() async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, stderr) = try await run(["run", matrix, "--out", out.path, "--env", "exec",
                                            "--driver", drivers.appendingPathComponent("silence.sh").path, "--step-timeout", "1"])
        #expect(code == 69)
        #expect(stderr.contains("error: the exec environment is unavailable: the driver did not answer initialize within 1 s"), "stderr: \(stderr)")
        #expect(stderr.contains("speaks the driver protocol (docs/driver-protocol.md)"))
        #expect(MatrixBinary.runDirectories(under: out).isEmpty)
    }

    @Test("a driver that cannot be found: exit 69")
    func missingDriver() async throws {
        let (code, stderr) = try await run(["run", matrix, "--env", "exec", "--driver", "no-such-matrix-driver --flag"])
        #expect(code == 69)
        #expect(stderr.contains("cannot find the driver no-such-matrix-driver in PATH"))
    }

    @Test("a matrix too large for the driver protocol's 16 MiB line: exit 65 before any driver starts, saying so, no run directory")
    func matrixTooLargeForTheProtocol() async throws {
        let out = try MatrixBinary.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        // 4,600 cases with 4,000-character descriptions (under the 4 KB a string may have): 18 MB, well under the 64 MB input limit; initialize carries
        // it (and its source text) in one line.
        let cases = (0..<4600).map {
            #"{"id": "c\#($0)", "kind": "fresh-purchase", "account": "a", "description": "\#(String(repeating: "x", count: 4000))", "#
                + #""steps": [{"action": "launch", "expect": {"access": []}}]}"#
        }
        var release = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: matrix))) as? [String: Any])
        release["accounts"] = ["a": ["description": "one account for every case"]]
        release["profiles"] = nil
        release["catalog"] = Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit").path
        release["cases"] = try JSONSerialization.jsonObject(with: Data(("[" + cases.joined(separator: ",") + "]").utf8))
        let big = out.appendingPathComponent("big.json")
        try JSONSerialization.data(withJSONObject: release).write(to: big)
        let ran = try await MatrixBinary.run(["run", big.path, "--out", out.path, "--env", "exec",
                                              "--driver", drivers.appendingPathComponent("silence.sh").path, "--step-timeout", "1"])
        let stderr = String(ran.stderr.suffix(2000))
        #expect(ran.status == 65, "stderr: \(stderr)")
        #expect(stderr.contains("the driver protocol carries at most 16777216 bytes per line"), "stderr: \(stderr)")
        #expect(!stderr.contains("did not answer initialize"), "the driver was started: \(stderr)")
        #expect(MatrixBinary.runDirectories(under: out).isEmpty)
    }
}
