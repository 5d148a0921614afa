import Dispatch
import Foundation
import EvidenceStore
import MatrixJSON

/// A file named by `--out`, or stdout.
///
/// A file is written under a temporary name beside it and put in place by ``commit()`` only once everything
/// is written: a failed command leaves the file that was there (and no folder it made), and `--force`
/// replaces the name itself, never what a link at that name points to: a hard or symbolic link to a run's
/// report keeps the run's bytes. A device or a pipe (`/dev/null`, `/dev/stdout`) is written to as it is.
final class OutputFile {
    let descriptor: Int32
    /// The path as given, or `stdout`.
    let path: String
    /// Where the bytes go until ``commit()``; `nil` for stdout and devices, which are written to directly.
    private let temporary: String?
    private let replacing: Bool
    /// Folders made for the file, outermost first: removed again when the file is not committed.
    private let madeFolders: [String]
    private var done = false
    /// Remove the temporary file when SIGINT, SIGTERM or SIGHUP ends the command before it is committed.
    private var signalSources: [(number: Int32, source: any DispatchSourceSignal)] = []

    private init(descriptor: Int32, path: String, temporary: String? = nil, replacing: Bool = false, madeFolders: [String] = []) {
        self.descriptor = descriptor
        self.path = path
        self.temporary = temporary
        self.replacing = replacing
        self.madeFolders = madeFolders
        if let temporary { removeOnSignal(temporary, madeFolders) }
    }

    /// Removes `temporary` and `folders` if a signal ends the command, then lets the signal end it as it would
    /// have (a signal the process started with ignored stays ignored).
    private func removeOnSignal(_ temporary: String, _ folders: [String]) {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(number, SIG_IGN)
            if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                _ = unlink(temporary)
                Self.removeFolders(folders)
                signal(number, SIG_DFL)
                kill(getpid(), number)  // to the process: the queue's own thread blocks signals
            }
            source.resume()
            signalSources.append((number, source))
        }
    }

    /// Gives the signals their default actions back.
    private func stopRemovingOnSignal() {
        for (number, source) in signalSources {
            source.cancel()
            signal(number, SIG_DFL)
        }
        signalSources = []
    }

    /// Opens `path` for writing, or stdout when `path` is `nil` or `-`; missing folders are made.
    ///
    /// - Parameters:
    ///   - replacing: whether ``commit()`` may replace a file (or link) already at `path`.
    ///   - protected: files that must never be the output, even with `replacing` (a run's own evidence and
    ///     manifest while its report is rendered); compared by device and inode, so any path to them is refused.
    /// - Throws: ``CommandFailure`` 64 when `path` is empty, inside a run directory, a protected file, or exists and
    ///   `replacing` is false; 74 when it cannot be opened or its folder made.
    static func open(_ path: String?, replacing: Bool = false, protected: [String] = [], console: Console) throws(CommandFailure) -> OutputFile {
        guard let path, path != "-" else {
            // A stdout closed by the caller holds /dev/null (see main.swift): writing there would lose the output.
            if console.outputClosed { throw .standardOutput(errno: EBADF) }
            return OutputFile(descriptor: STDOUT_FILENO, path: "stdout")
        }
        guard !path.isEmpty else { throw .usage("--out is empty; name a file, or - for stdout") }
        try refuseInsideRun(path)
        var info = stat()
        if stat(path, &info) == 0 {
            // A name for this process's stdout or stderr (/dev/stdout, /proc/self/fd/1, a link to them) is
            // written to as the descriptor it names, never replaced.
            for standard in [STDOUT_FILENO, STDERR_FILENO] {
                var open = stat()
                if fstat(standard, &open) == 0, open.st_dev == info.st_dev, open.st_ino == info.st_ino {
                    if standard == STDOUT_FILENO, console.outputClosed { throw .standardOutput(errno: EBADF) }
                    return OutputFile(descriptor: standard, path: path)
                }
            }
            for other in protected {
                var otherInfo = stat()
                if stat(other, &otherInfo) == 0, otherInfo.st_dev == info.st_dev, otherInfo.st_ino == info.st_ino {
                    throw .usage("--out \(TerminalText.visible(path)) is \(TerminalText.visible(other)), which the report is made from; write the report elsewhere")
                }
            }
            let type = info.st_mode & S_IFMT
            if type == S_IFCHR || type == S_IFIFO {
                let descriptor = Foundation.open(path, O_WRONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw failure("cannot write", path) }
                return OutputFile(descriptor: descriptor, path: path)
            }
        }
        var own = stat()
        let present = lstat(path, &own) == 0
        if present {
            if (own.st_mode & S_IFMT) == S_IFDIR { throw .usage("--out \(TerminalText.visible(path)) is a folder; name a file in it") }
            // As everywhere: replacing a file takes --force, and asking without it is a usage error.
            guard replacing else { throw exists(path) }
        }
        let url = URL(fileURLWithPath: path)
        let made = try makeFolders(url.deletingLastPathComponent().path, for: path)
        // A short name whatever the file's, so that a long file name still fits beside it.
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".matrix-\(getpid())-\(UInt32.random(in: 0 ... .max)).tmp").path
        let descriptor = Foundation.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let error = failure("cannot write", path)
            removeFolders(made)
            throw error
        }
        // Where the file really lands, as the kernel resolved the folder (a link followed by `..` is not what
        // its text says): never inside a run.
        if let real = realpath(temporary, nil) {
            defer { free(real) }
            if let run = runDirectory(above: URL(fileURLWithPath: String(cString: real)).deletingLastPathComponent()) {
                _ = Foundation.close(descriptor)
                _ = unlink(temporary)
                removeFolders(made)
                throw insideRun(path, run, option: "--out")
            }
        }
        // A file replaced keeps its permissions.
        if present, (own.st_mode & S_IFMT) == S_IFREG { _ = fchmod(descriptor, own.st_mode & 0o7777) }
        return OutputFile(descriptor: descriptor, path: path, temporary: temporary, replacing: replacing, madeFolders: made)
    }

    /// Makes the missing folders of `folder`, one at a time so that a failure can take them back.
    /// - Returns: the folders made, outermost first.
    private static func makeFolders(_ folder: String, for path: String) throws(CommandFailure) -> [String] {
        var missing: [String] = []
        var current = folder
        var info = stat()
        while !current.isEmpty, current != "/", current != ".", stat(current, &info) != 0, errno == ENOENT {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        var made: [String] = []
        for folder in missing.reversed() {
            guard mkdir(folder, 0o755) == 0 else {
                let error = failure("cannot make the folder \(TerminalText.visible(folder)) for", path)
                removeFolders(made)
                throw error
            }
            made.append(folder)
        }
        return made
    }

    private static func removeFolders(_ folders: [String]) {
        for folder in folders.reversed() { _ = rmdir(folder) }
    }

    private static func failure(_ doing: String, _ path: String) -> CommandFailure {
        CommandFailure("\(doing) \(TerminalText.visible(path)): \(String(cString: strerror(errno)))", code: .ioError)
    }

    private static func exists(_ path: String) -> CommandFailure {
        .usage("\(TerminalText.visible(path)) exists; pass --force to replace it, or choose another --out")
    }

    /// Refuses an output inside a run directory (the nearest folder above `path`, symbolic links resolved, that
    /// holds a `run.json` and an `evidence.jsonl`): a file added there is EXTRA to `matrix verify`, and a file
    /// replaced there is the run's evidence ALTERED, `--force` or not.
    /// - Throws: ``CommandFailure`` 64 naming the run directory.
    static func refuseInsideRun(_ path: String, option: String = "--out") throws(CommandFailure) {
        let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.deletingLastPathComponent()
        if let run = runDirectory(above: folder) { throw insideRun(path, run, option: option) }
    }

    /// The nearest folder from `folder` up that holds a `run.json` and an `evidence.jsonl`, if any.
    private static func runDirectory(above folder: URL) -> String? {
        let files = FileManager.default
        var directory = folder
        while true {
            if files.fileExists(atPath: directory.appendingPathComponent(RunDirectory.manifestFileName).path),
               files.fileExists(atPath: directory.appendingPathComponent(RunDirectory.evidenceFileName).path) {
                return directory.path
            }
            let parent = directory.deletingLastPathComponent()
            guard parent.path != directory.path, !parent.path.isEmpty else { return nil }
            directory = parent
        }
    }

    private static func insideRun(_ path: String, _ run: String, option: String) -> CommandFailure {
        .usage("\(option) \(TerminalText.visible(path)) is inside the run directory \(TerminalText.visible(run)), "
            + "whose files are its evidence (matrix verify reports a file added there as EXTRA and one replaced as ALTERED); write it elsewhere")
    }

    /// Writes all of `data` to `path` (or stdout for `-`) and puts it in place.
    /// - Throws: ``CommandFailure`` as ``open(_:replacing:protected:console:)``, ``write(_:)`` and ``commit()``.
    static func write(_ data: Data, to path: String, replacing: Bool = false, console: Console) throws(CommandFailure) {
        let file = try open(path, replacing: replacing, console: console)
        defer { file.close() }
        try file.write([UInt8](data))
        try file.commit()
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
                throw Self.failure("cannot write", path)
            }
            offset += written
        }
    }

    /// Whether this is stdout.
    var isStandardOutput: Bool { temporary == nil && descriptor == STDOUT_FILENO }

    /// Puts the written file at its path: in place of what was there with `replacing`, else only if nothing is
    /// there still. Nothing to do for stdout or a device.
    /// - Throws: ``CommandFailure`` 64 when a file appeared at the path meanwhile and `replacing` is false, 74
    ///   when the file cannot be put in place; the path is then left as it was.
    func commit() throws(CommandFailure) {
        guard let temporary, !done else { return }
        done = true
        defer { stopRemovingOnSignal() }
        // rename() replaces the name, whatever it names; link() never replaces anything. A file system without
        // hard links (EPERM, ENOTSUP) gets rename() after a last look that nothing appeared.
        if replacing ? rename(temporary, path) == 0 : link(temporary, path) == 0 {
            _ = unlink(temporary)  // the name link() left (rename() took it already)
            return
        }
        var number = errno
        if !replacing, number == EPERM || number == ENOTSUP {
            var info = stat()
            if lstat(path, &info) == 0 { number = EEXIST } else if rename(temporary, path) == 0 { return } else { number = errno }
        }
        _ = unlink(temporary)
        Self.removeFolders(madeFolders)
        if number == EEXIST { throw Self.exists(path) }
        errno = number
        throw Self.failure("cannot write", path)
    }

    /// Closes the file; one that was not committed is removed, with the folders made for it.
    func close() {
        if descriptor > STDERR_FILENO { _ = Foundation.close(descriptor) }
        guard let temporary, !done else { return }
        done = true
        _ = unlink(temporary)
        Self.removeFolders(madeFolders)
        stopRemovingOnSignal()
    }
}
