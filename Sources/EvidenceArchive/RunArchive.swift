import EvidenceStore
import FileIO
import Foundation
import MatrixJSON
import MatrixModel

/// Packs a run directory into one `.tar.gz` with a top-level `archive.json`, and unpacks one for checking.
///
/// Layout: `archive.json` (an ``ArchiveManifest`` listing the SHA-256 of every file of the run, `run.json`
/// included) and the run directory `<run-id>/…` beside it. The system `tar` does the packing, run as a child
/// process without a shell.
public enum RunArchive {
    /// An archive unpacked into a directory.
    public struct Unpacked: Sendable {
        /// The archive's `archive.json`.
        public var manifest: ArchiveManifest
        /// The directory it was unpacked into.
        public var root: URL
        /// The run directory inside `root`.
        public var runDirectory: URL
        /// Top-level entries other than `archive.json` and the run directory.
        public var strayEntries: [String]
    }

    /// Packs `run` into the gzip tar `output`.
    ///
    /// The archive is written to a temporary file beside `output` and renamed into place, so a failure never
    /// leaves a partial archive under the requested name.
    ///
    /// - Parameters:
    ///   - run: The run directory; every file below it is packed.
    ///   - manifest: The run's `run.json`, already read.
    ///   - output: The archive to write.
    ///   - overwrite: Replace `output` when it exists.
    ///   - toolVersion: The `matrix` version, recorded in `archive.json`.
    ///   - bundleId: The app's bundle id, recorded for later signed-data checks, when known.
    ///   - now: The packing time, from the caller's clock.
    ///   - interruption: ends `tar` when it comes; the partial archive and the temporary directory are removed.
    /// - Returns: The `archive.json` written into the archive.
    /// - Throws: ``RunArchiveError`` (`outputExists`, `unsupportedFile`, `cannotWrite`, `tarUnavailable`,
    ///   `tarFailed`, `interrupted`) or ``EvidenceWriteError`` `cannotHash` when a file of the run cannot be read.
    @discardableResult
    public static func create(run: RunDirectory, manifest: RunManifest, output: URL, overwrite: Bool, toolVersion: String,
                              bundleId: String?, now: Date, interruption: Interruption = .never) throws -> ArchiveManifest {
        let fm = FileManager.default
        if !overwrite, fm.fileExists(atPath: output.path) {
            throw RunArchiveError(.outputExists, path: output.path,
                                  message: "\(output.path) already exists; choose another file, or pass --force to replace it")
        }
        let name = run.url.lastPathComponent
        let files = try FileIntegrity.digests(of: run.url)
        let archiveManifest = ArchiveManifest(toolVersion: toolVersion, createdAt: now, run: manifest, directory: name,
                                              bundleId: bundleId, files: files)

        let staging = fm.temporaryDirectory.appendingPathComponent("matrix-archive-\(UUID().uuidString)")
        let partial = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        defer {
            try? fm.removeItem(at: staging)
            try? fm.removeItem(at: partial)
        }
        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: true)
            try archiveManifest.encoded().write(to: staging.appendingPathComponent(ArchiveManifest.fileName))
        } catch {
            throw RunArchiveError(.cannotWrite, path: staging.path,
                                  message: "cannot write a temporary file in \(staging.path): \(error.localizedDescription); check TMPDIR")
        }
        // Members in sorted order, named "<run-id>/<file>"; "./" keeps a name that starts with "-" from reading
        // as an option.
        let prefix = name.hasPrefix("-") ? "./" + name : name
        let members = files.keys.sorted().map { prefix + "/" + $0 }
        _ = try Tar.run(["-czf", partial.path, "-C", staging.path, ArchiveManifest.fileName,
                         "-C", run.url.deletingLastPathComponent().path] + members, path: run.url.path, interruption: interruption)
        if interruption.isInterrupted { throw RunArchiveError.interrupted(run.url.path) }
        // rename(2) replaces an existing file atomically; without --force the check above has already refused one.
        guard rename(partial.path, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            throw RunArchiveError(.cannotWrite, path: output.path,
                                  message: "cannot write \(output.path): \(reason); check that its directory exists and is writable")
        }
        return archiveManifest
    }

    /// Whether `bytes` start like a gzip file (`1f 8b`), as every run archive does.
    public static func looksLikeArchive(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x1F, 0x8B])
    }

    /// Unpacks `archive` into `directory` (which should be new and empty) and reads its `archive.json`.
    ///
    /// The gzip stream is decompressed by the system `gzip` and the tar stream read here (``TarReader``): only
    /// regular files and directories are written, every member name is checked first (an absolute name or one
    /// with a `..` component is refused, so nothing lands outside `directory`), and `limits` bound what the
    /// archive may expand to and how long unpacking may take. On `interruption` `gzip` is ended and unpacking
    /// stops; the caller removes `directory`.
    ///
    /// - Throws: ``RunArchiveError`` `notAnArchive` when `archive` is not a gzip tar with a valid `archive.json`,
    ///   `unsafeEntry` for a member a run archive never holds, `limitExceeded`, `interrupted`, `gzipUnavailable`,
    ///   `cannotWrite` when `directory` cannot be written.
    public static func unpack(_ archive: URL, into directory: URL, limits: ArchiveLimits = .standard,
                              interruption: Interruption = .never) throws -> Unpacked {
        let display = archive.path
        let input = try GzipInput(archive, display: display)
        defer { input.stop() }
        return try interruption.watching(input.pid) { () throws -> Unpacked in
            let unpacked: Unpacked
            do {
                unpacked = try unpack(tarStream: input, into: directory, limits: limits, interruption: interruption, display: display)
            } catch let error as RunArchiveError where error.code == .notAnArchive {
                // A tar stream cut short is what gzip gives for a damaged or foreign file: gzip's verdict says more.
                if input.reachedEnd { try input.finish() }
                throw error
            }
            try input.finish()
            return unpacked
        }
    }

    /// Unpacks an uncompressed tar stream as ``unpack(_:into:limits:interruption:)`` does; for the gzip stream
    /// of an archive, and for tests and fuzzing from memory.
    static func unpack(tarStream: some TarByteSource, into directory: URL, limits: ArchiveLimits, interruption: Interruption,
                       display: String) throws -> Unpacked {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw RunArchiveError(.cannotWrite, path: directory.path, message: "cannot create \(directory.path): \(error.localizedDescription); check TMPDIR")
        }
        var reader = TarReader(source: tarStream, directory: directory, limits: limits, interruption: interruption, display: display)
        _ = try reader.unpack()
        if let link = firstNonRegularEntry(under: directory) {
            throw RunArchiveError(.unsafeEntry, path: display,
                                  message: "\(display) has a member \"\(TerminalText.visible(link))\" that is neither a file nor a directory (a link or a device); it was not made by matrix archive")
        }

        let manifestURL = directory.appendingPathComponent(ArchiveManifest.fileName)
        let data: [UInt8]
        do {
            data = try InputFile.read(manifestURL.path, followingLinks: false)
        } catch {
            throw RunArchiveError(.notAnArchive, path: display,
                                  message: "\(display) has no \(ArchiveManifest.fileName) at its top level, so it was not made by matrix archive")
        }
        let manifest = try ArchiveManifest.decode(Data(data), path: "\((display as NSString).lastPathComponent):\(ArchiveManifest.fileName)")
        let top = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let stray = top.filter { $0 != ArchiveManifest.fileName && $0 != manifest.directory }.sorted()
        return Unpacked(manifest: manifest, root: directory, runDirectory: directory.appendingPathComponent(manifest.directory),
                        strayEntries: stray)
    }

    /// The relative path of the first entry under `directory` that is not a regular file or a directory: a
    /// symbolic link in an archive could make a check read a file outside it.
    static func firstNonRegularEntry(under directory: URL) -> String? {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return nil }
        while let relative = enumerator.nextObject() as? String {
            var info = stat()
            guard lstat(directory.appendingPathComponent(relative).path, &info) == 0 else { return relative }
            let type = info.st_mode & S_IFMT
            if type != S_IFREG && type != S_IFDIR { return relative }
        }
        return nil
    }
}
