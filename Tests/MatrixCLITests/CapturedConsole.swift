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

    /// - Parameter options: more options for `matrix run` (`--clock testflight`, `--case ID`).
    static func make(_ options: [String] = []) async throws -> ReleaseRun {
        let root = try MatrixBinary.scratchDirectory("matrix-verify")
        let matrix = Fixtures.packageDirectory.appendingPathComponent("matrices/release.json").path
        let result = try await CapturedRun.run(["run", matrix, "--out", root.appendingPathComponent("reports").path, "--quiet"] + options)
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

extension ReleaseRun {
    /// A copy of one finished run of `matrices/release.json`, made once per test process: for tests that edit a run
    /// and verify it, without running the matrix again for each (the suite shares two cores with timing tests).
    static func copy() async throws -> ReleaseRun {
        let template = try await ReleaseRunTemplate.shared.run()
        let root = try MatrixBinary.scratchDirectory("matrix-verify")
        try FileManager.default.removeItem(at: root)
        try FileManager.default.copyItem(at: template.root, to: root)
        let relative = String(template.run.path.dropFirst(template.root.path.count)).drop { $0 == "/" }
        return ReleaseRun(root: root, run: root.appendingPathComponent(String(relative)))
    }
}

/// The run ``ReleaseRun/copy()`` copies; it is removed when the test process exits.
private actor ReleaseRunTemplate {
    static let shared = ReleaseRunTemplate()
    private var made: Task<ReleaseRun, any Error>?

    func run() async throws -> ReleaseRun {
        if let made { return try await made.value }
        let task = Task {
            let run = try await ReleaseRun.make()
            templateRoot = run.root.path
            atexit { templateRoot.map { _ = try? FileManager.default.removeItem(atPath: $0) } }
            return run
        }
        made = task
        return try await task.value
    }
}

/// The template's directory, for the exit handler (which can capture nothing); written once, before it is registered.
nonisolated(unsafe) private var templateRoot: String?

/// Runs the system tar for tests that tamper with archives.
func tar(_ arguments: [String]) async throws {
    let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["tar"] + arguments)
    if result.exit.status != 0 {
        throw ReleaseRun.ReleaseRunError(message: "tar \(arguments) exited \(result.exit.status): \(result.stderr)")
    }
}
