import EvidenceStore
import FileIO
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The decompressed bytes of a gzip file, from the system `gzip -dc` run as a child process without a shell.
///
/// The archive is opened here (a regular file) and handed to `gzip` as its standard input, so `gzip` reads
/// exactly the file checked. Reading stops whenever the reader stops asking: ``finish()`` then ends `gzip`,
/// whatever it still had to write, and an ``Interruption`` ends it at once. Should this process die, `gzip`
/// dies on its next write to the pipe nobody reads.
final class GzipInput: TarByteSource {
    private let process: Process
    private let output: FileHandle
    private let display: String
    private var ended = false
    private var launched = false

    /// Starts `gzip -dc` on `archive`.
    ///
    /// - Throws: ``RunArchiveError`` `gzipUnavailable` without `gzip` on `PATH`, `notAnArchive` when `archive`
    ///   is not a readable regular file, `tarFailed` when `gzip` cannot start.
    init(_ archive: URL, display: String) throws(RunArchiveError) {
        guard let executable = Tar.locate("gzip") else {
            throw RunArchiveError(.gzipUnavailable, path: archive.path, message: "no gzip executable on PATH; install gzip and try again")
        }
        let fd: Int32
        do {
            fd = try InputFile.openRegular(archive.path, followingLinks: true)
        } catch {
            throw RunArchiveError(.notAnArchive, path: archive.path, message: "cannot read \(error.about(display))")
        }
        let input = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let pipe = Pipe()
        process = Process()
        process.executableURL = executable
        process.arguments = ["-dc"]
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        environment.removeValue(forKey: "GZIP")  // options from the environment would change what is read
        process.environment = environment
        process.standardInput = input
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        output = pipe.fileHandleForReading
        self.display = display
        do {
            try process.run()
        } catch {
            throw RunArchiveError(.tarFailed, path: archive.path, message: "cannot start \(executable.path): \(error.localizedDescription)")
        }
        launched = true
        try? input.close()
    }

    deinit {
        stop()
    }

    var pid: Int32 { process.processIdentifier }

    /// Whether the whole decompressed stream has been read.
    var reachedEnd: Bool { ended }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RunArchiveError) -> Int {
        guard !ended else { return 0 }
        while true {
            let count = Foundation.read(output.fileDescriptor, buffer.baseAddress, buffer.count)
            if count >= 0 {
                if count == 0 { ended = true }
                return count
            }
            if errno == EINTR { continue }
            throw RunArchiveError(.notAnArchive, path: display, message: "cannot read \(display): \(String(cString: strerror(errno)))")
        }
    }

    /// Waits for `gzip` after the whole stream was read.
    ///
    /// - Throws: ``RunArchiveError`` `notAnArchive` when `gzip` reported the file damaged or not gzip.
    func finish() throws(RunArchiveError) {
        var drain = [UInt8](repeating: 0, count: 1)
        // Anything still to read means the tar stream ended before gzip's did: what follows was never checked.
        let more = drain.withUnsafeMutableBytes { Foundation.read(output.fileDescriptor, $0.baseAddress, 1) }
        if more > 0 {
            stop()
            throw RunArchiveError(.notAnArchive, path: display, message: "\(display) holds data after the end of its tar archive; it was not made by matrix archive")
        }
        process.waitUntilExit()
        try? output.close()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw RunArchiveError(.notAnArchive, path: display,
                                  message: "\(display) is not a readable gzip tar archive (gzip found it damaged or not gzip: exit \(process.terminationStatus))")
        }
    }

    /// Ends `gzip` without waiting for the rest of its output.
    func stop() {
        guard launched, process.isRunning || !ended else { return }
        ended = true
        if process.isRunning { process.terminate() }
        try? output.close()
        process.waitUntilExit()
    }
}
