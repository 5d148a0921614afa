import Foundation
import EvidenceStore
import MatrixJSON

/// A file named by `--out`, or stdout: opened with `open(2)` so that device files such as `/dev/null` are
/// written to, never replaced.
struct OutputFile {
    let descriptor: Int32
    let path: String
    private let ownsDescriptor: Bool

    /// Opens `path` for writing (created, with its folder when that is missing, or with `replacing` a new file in
    /// place of a regular one), or stdout
    /// when `path` is `nil` or `-`. A device or a pipe (`/dev/null`, `/dev/stdout`) is written to as it is.
    ///
    /// - Parameter protected: files that must never be the output, even with `replacing` (a run's own
    ///   evidence and manifest while its report is rendered); compared by device and inode, so any path to
    ///   them is refused.
    /// - Throws: ``CommandFailure`` 64 when `path` is a protected file or exists and `replacing` is false, 74
    ///   when the file cannot be opened.
    static func open(_ path: String?, replacing: Bool = false, protected: [String] = [], console: Console) throws(CommandFailure) -> OutputFile {
        guard let path, path != "-" else {
            // A stdout closed by the caller holds /dev/null (see main.swift): writing there would lose the output.
            if console.outputClosed { throw .standardOutput(errno: EBADF) }
            return OutputFile(descriptor: STDOUT_FILENO, path: "stdout", ownsDescriptor: false)
        }
        try refuseInsideRun(path)
        var info = stat()
        if stat(path, &info) == 0 {
            for other in protected {
                var otherInfo = stat()
                if stat(other, &otherInfo) == 0, otherInfo.st_dev == info.st_dev, otherInfo.st_ino == info.st_ino {
                    throw .usage("--out \(path) is \(other), which the report is made from; write the report elsewhere")
                }
            }
            let type = info.st_mode & S_IFMT
            if type == S_IFCHR || type == S_IFIFO {
                let descriptor = Foundation.open(path, O_WRONLY)
                guard descriptor >= 0 else {
                    throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))", code: .ioError)
                }
                return OutputFile(descriptor: descriptor, path: path, ownsDescriptor: true)
            }
        }
        // An existing file is replaced only when asked: it may be a run's own evidence. A regular file is replaced
        // by a new one, not written through: another name of it (a hard link to a run's report) keeps its bytes.
        var own = stat()
        if replacing, lstat(path, &own) == 0, (own.st_mode & S_IFMT) == S_IFREG, unlink(path) != 0, errno != ENOENT {
            throw CommandFailure("cannot replace \(path): \(String(cString: strerror(errno)))", code: .ioError)
        }
        // A missing folder is made, as `matrix init --out` makes one.
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure("cannot make the folder \(folder.path) for \(path): \(error.localizedDescription)", code: .ioError)
            }
        }
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | (replacing ? O_TRUNC : O_EXCL), 0o644)
        guard descriptor >= 0 else {
            if errno == EEXIST {
                // As everywhere: replacing a file takes --force, and asking without it is a usage error.
                throw .usage("\(path) exists; pass --force to replace it, or choose another --out")
            }
            throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))", code: .ioError)
        }
        return OutputFile(descriptor: descriptor, path: path, ownsDescriptor: true)
    }

    /// Refuses an output inside a run directory (the nearest folder above `path`, symbolic links resolved, that
    /// holds a `run.json` and an `evidence.jsonl`): a file added there is EXTRA to `matrix verify`, and a file
    /// replaced there is the run's evidence ALTERED, `--force` or not.
    /// - Throws: ``CommandFailure`` 64 naming the run directory.
    static func refuseInsideRun(_ path: String, option: String = "--out") throws(CommandFailure) {
        let files = FileManager.default
        var directory = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.deletingLastPathComponent()
        while true {
            if files.fileExists(atPath: directory.appendingPathComponent(RunDirectory.manifestFileName).path),
               files.fileExists(atPath: directory.appendingPathComponent(RunDirectory.evidenceFileName).path) {
                throw .usage("\(option) \(TerminalText.visible(path)) is inside the run directory \(TerminalText.visible(directory.path)), "
                    + "whose files are its evidence (matrix verify reports a file added there as EXTRA and one replaced as ALTERED); write it elsewhere")
            }
            let parent = directory.deletingLastPathComponent()
            guard parent.path != directory.path, !parent.path.isEmpty else { return }
            directory = parent
        }
    }

    /// Writes all of `data` to `path` (or stdout for `-`).
    /// - Throws: ``CommandFailure`` 74 when it cannot be written.
    static func write(_ data: Data, to path: String, replacing: Bool = false, console: Console) throws(CommandFailure) {
        let file = try open(path, replacing: replacing, console: console)
        defer { file.close() }
        try file.write([UInt8](data))
    }

    /// Writes all of `bytes`.
    /// - Throws: ``CommandFailure`` 74 when a write fails.
    func write(_ bytes: [UInt8]) throws(CommandFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if isStandardOutput { throw .standardOutput(errno: errno) }
                throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))", code: .ioError)
            }
            offset += written
        }
    }

    /// Whether this is stdout.
    var isStandardOutput: Bool { !ownsDescriptor && descriptor == STDOUT_FILENO }

    /// Removes a regular file this opened (after a failed write, so no partial report is left); stdout and
    /// device files are left alone.
    func removeIfRegularFile() {
        guard ownsDescriptor else { return }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { _ = unlink(path) }
    }

    func close() {
        if ownsDescriptor { _ = Foundation.close(descriptor) }
    }
}
