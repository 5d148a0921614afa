import EvidenceStore
import Foundation

/// Runs the system `tar` (GNU tar or bsdtar) as a child process with an argument vector, never through a shell.
enum Tar {
    /// The first executable `name` (`tar`, `gzip`) on `PATH` (or in `/usr/bin`, `/bin` when `PATH` is unset).
    static func locate(_ name: String = "tar", environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `tar arguments…` and returns its standard output.
    ///
    /// - Parameter interruption: ends `tar` at once when it comes.
    /// - Throws: ``RunArchiveError`` `tarUnavailable` when there is no `tar`, `tarFailed` with tar's own
    ///   message when it exits non-zero or cannot start, `interrupted`.
    static func run(_ arguments: [String], path: String, interruption: Interruption = .never) throws -> Data {
        guard let executable = locate() else {
            throw RunArchiveError(.tarUnavailable, path: path, message: "no tar executable on PATH; install tar (GNU tar or bsdtar) and try again")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        process.environment = environment
        // tar's messages go to a temporary file, so that only one pipe needs draining and none can block tar.
        let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-tar-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errorsURL.path, contents: nil),
              let errors = try? FileHandle(forWritingTo: errorsURL) else {
            throw RunArchiveError(.cannotWrite, path: errorsURL.path, message: "cannot create a temporary file in \(errorsURL.deletingLastPathComponent().path); check TMPDIR")
        }
        defer {
            try? errors.close()
            try? FileManager.default.removeItem(at: errorsURL)
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw RunArchiveError(.tarFailed, path: path, message: "cannot start \(executable.path): \(error.localizedDescription)")
        }
        let data = interruption.watching(process.processIdentifier) { () -> Data in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        if interruption.isInterrupted { throw RunArchiveError.interrupted(path) }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = String(decoding: (try? Data(contentsOf: errorsURL)) ?? Data(), as: UTF8.self)
            let reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
            throw RunArchiveError(.tarFailed, path: path,
                                  message: "tar \(arguments.first ?? "") failed on \(path)" + (reason.isEmpty ? "" : ": \(reason)"))
        }
        return data
    }
}
