import Foundation

/// Runs the built `matrix` executable for end-to-end tests.
///
/// The binary is `.build/debug/matrix` under the package (`swift test` builds it), or the path in the
/// `MATRIX_BINARY` environment variable.
public enum MatrixBinary {
    /// What a run of the binary printed and returned.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static var url: URL {
        if let path = ProcessInfo.processInfo.environment["MATRIX_BINARY"] { return URL(fileURLWithPath: path) }
        return Fixtures.packageDirectory.appendingPathComponent(".build/debug/matrix")
    }

    /// Runs `matrix` with `arguments` in `directory`, with `NO_COLOR` set, and waits for it.
    ///
    /// - Parameter standardInput: what the process reads on stdin; by default nothing (`/dev/null`).
    public static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                           standardInput: FileHandle? = nil) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = standardInput ?? FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so that a full pipe never blocks the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory.
    public static func scratchDirectory(_ name: String = "matrix-e2e") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every run directory (`<root>/<env>/<build>/<run-id>`) below `root`.
    public static func runDirectories(under root: URL) -> [URL] {
        let fm = FileManager.default
        var result: [URL] = []
        // Hidden entries are not runs: a run directory is staged as `.<run-id>.new` until it is complete.
        func entries(_ url: URL) -> [URL] {
            (try? fm.contentsOfDirectory(at: url, includingPropertiesForKeys: nil, options: .skipsHiddenFiles)) ?? []
        }
        for env in entries(root) {
            for build in entries(env) {
                result += entries(build)
            }
        }
        return result.sorted { $0.path < $1.path }
    }
}
