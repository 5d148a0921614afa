import Foundation
import MatrixCLI
import TestSupport

/// Runs `matrix` in process with its output captured, for command-level tests that need no built binary.
enum CommandHarness {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `matrix arguments…` with stdout and stderr captured in files; `NO_COLOR` is set, and `environment`
    /// (`COLUMNS`) is what the console sees besides. `stdout`, when given, replaces the captured stdout (whose
    /// text is then empty).
    static func run(_ arguments: [String], stdout: FileHandle? = nil, environment: [String: String] = [:]) async throws -> Result {
        let directory = try MatrixBinary.scratchDirectory("matrix-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let console = Console(environment: environment.merging(["NO_COLOR": "1"]) { _, set in set }, out: stdout ?? out, err: err)
        let status = await HeavyWork.run { await MatrixCommand.main(["matrix"] + arguments, console: console) }
        try out.close()
        try err.close()
        return Result(status: status, stdout: try String(contentsOf: outURL, encoding: .utf8),
                      stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// A scratch directory holding a copy of the example catalog, `Products.storekit`.
    static func directoryWithCatalog() throws -> URL {
        let directory = try MatrixBinary.scratchDirectory("matrix-cli")
        try FileManager.default.copyItem(at: Fixtures.packageDirectory.appendingPathComponent("matrices/Products.storekit"),
                                         to: directory.appendingPathComponent("Products.storekit"))
        return directory
    }
}
