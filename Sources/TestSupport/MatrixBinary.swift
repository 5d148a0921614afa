import Foundation

/// Runs the built `matrix` executable for end-to-end tests.
///
/// The binary is the `matrix` next to the running test bundle (in the build's bin directory, for debug and
/// release builds alike: `swift test` builds it), or the path in the `MATRIX_BINARY` environment variable.
/// Runs are awaited without blocking a thread (``ChildProcess``), so tests that run the binary in parallel do
/// not starve the others.
public enum MatrixBinary {
    /// What a run of the binary printed and returned.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static let url: URL = locate()

    /// `MATRIX_BINARY`, else `matrix` in the directory of the test bundle or test executable, else
    /// `.build/debug/matrix` under the package.
    private static func locate() -> URL {
        if let path = ProcessInfo.processInfo.environment["MATRIX_BINARY"] { return URL(fileURLWithPath: path) }
        var directories: [URL] = []
        // Apple platforms: the `.xctest` bundle sits in the bin directory.
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        // Linux: the test executable (`<Package>PackageTests.xctest`) is itself in the bin directory.
        #if os(Linux)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        #endif
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent())
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("matrix")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return Fixtures.packageDirectory.appendingPathComponent(".build/debug/matrix")
    }

    /// The environment a run gets: the test's own, with `NO_COLOR` set and `environment` on top.
    public static func environment(_ environment: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.merge(environment) { _, new in new }
        return env
    }

    /// Runs `matrix` with `arguments` in `directory`, with `NO_COLOR` set, and waits for it without blocking a
    /// thread.
    ///
    /// - Parameter standardInput: the path of what the process reads on stdin; `/dev/null` by default.
    public static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                           standardInput: String = "/dev/null") async throws -> Result {
        let result = try await ChildProcess.run(url, arguments, in: directory, environment: self.environment(environment),
                                                standardInput: standardInput)
        return Result(status: result.exit.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// Starts `matrix` with `arguments` in `directory`, with `NO_COLOR` set, its output discarded; await its
    /// ``ChildProcess/exit()``.
    public static func start(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(url, arguments, in: directory, environment: self.environment(environment))
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
