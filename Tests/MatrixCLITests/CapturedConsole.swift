import Foundation
@testable import MatrixCLI
@testable import TestSupport

/// Runs `matrix` in-process with stdout and stderr captured in temporary files.
struct CapturedRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(_ arguments: [String]) async throws -> CapturedRun {
        let directory = try MatrixBinary.scratchDirectory("matrix-console")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let console = Console(environment: ["NO_COLOR": "1"], out: out, err: err)
        let status = await HeavyWork.run { await MatrixCommand.main(["matrix"] + arguments, console: console) }
        try out.close()
        try err.close()
        return CapturedRun(status: status,
                           stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                           stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// A finished local run of `matrices/release.json` in a scratch directory, made once per test that asks.
struct ReleaseRun {
    let root: URL
    let run: URL

    static func make() async throws -> ReleaseRun {
        let root = try MatrixBinary.scratchDirectory("matrix-verify")
        let matrix = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let result = try await CapturedRun.run(["run", matrix, "--out", root.appendingPathComponent("reports").path, "--quiet"])
        guard result.status == 0, let run = MatrixBinary.runDirectories(under: root.appendingPathComponent("reports")).first else {
            throw ReleaseRunError(message: "matrix run failed: \(result.stderr)")
        }
        return ReleaseRun(root: root, run: run)
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    struct ReleaseRunError: Error {
        var message: String
    }
}

/// Runs the system tar for tests that tamper with archives.
func tar(_ arguments: [String]) async throws {
    let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["tar"] + arguments)
    if result.exit.status != 0 {
        throw ReleaseRun.ReleaseRunError(message: "tar \(arguments) exited \(result.exit.status): \(result.stderr)")
    }
}
