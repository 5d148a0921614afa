import Foundation
import FileIO

/// One run's directory of evidence: `<root>/<environment>/<build-slug>/<run-id>/`.
///
/// It holds `run.json` (the ``RunManifest``), `evidence.jsonl` (one ``EvidenceRecord`` per line, written by
/// ``EvidenceWriter``) and the reports `junit.xml`, `summary.md` and `report.html`. A run directory is created
/// once and never overwritten.
public struct RunDirectory: Sendable, Hashable {
    /// `run.json`.
    public static let manifestFileName = "run.json"
    /// `evidence.jsonl`.
    public static let evidenceFileName = "evidence.jsonl"
    /// The build directory used when no build was given, or the build is `local`.
    public static let unspecifiedBuild = "unspecified"

    /// The run directory itself.
    public let url: URL

    /// A run directory that already exists, for re-rendering reports, verifying or resuming a run.
    public init(url: URL) {
        self.url = url.standardizedFileURL
    }

    /// `<run directory>/run.json`.
    public var manifestURL: URL { url.appendingPathComponent(Self.manifestFileName) }
    /// `<run directory>/evidence.jsonl`.
    public var evidenceURL: URL { url.appendingPathComponent(Self.evidenceFileName) }

    /// Why `directory` could not be created, in the system's words: an existing file on its path, or the
    /// POSIX error under Foundation's.
    static func reason(creating directory: URL, _ error: any Error) -> String {
        var path = directory.standardizedFileURL.path
        while !path.isEmpty && path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(path) is a file, not a directory" }
                break
            }
            path = (path as NSString).deletingLastPathComponent
        }
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }

    /// Creates `<root>/<environment>/<build-slug>/<runID>/`, creating `root` and the levels above the run as
    /// needed.
    ///
    /// The run directory appears whole: `prepare` fills a hidden staging directory beside it (`.<runID>.new`),
    /// which is then renamed into place, so a process killed at any moment leaves either no run directory or
    /// one with everything `prepare` wrote (a new run's `run.json` and empty evidence).
    ///
    /// - Parameters:
    ///   - root: the reports directory, e.g. `reports`.
    ///   - environment: `local`, `sandbox`, …; used as written.
    ///   - build: the build string as given, e.g. `1.4 (212)`; see ``buildSlug(_:)``.
    ///   - runID: the run's identifier; used as written.
    ///   - prepare: writes the directory's first files into the staging directory it is given.
    /// - Throws: ``EvidenceWriteError`` with code `runDirectoryExists` when the run directory exists (nothing
    ///   in it is touched), `invalidPathComponent` when `environment` or `runID` cannot name a directory,
    ///   `cannotCreateDirectory` otherwise; or what `prepare` throws. The staging directory is then removed.
    public static func create(root: URL, environment: String, build: String, runID: String,
                              preparing prepare: (RunDirectory) throws -> Void = { _ in }) throws -> RunDirectory {
        try checkComponent(environment, what: "environment name")
        try checkComponent(runID, what: "run id")
        let parent = root.appendingPathComponent(environment).appendingPathComponent(buildSlug(build))
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw EvidenceWriteError(.cannotCreateDirectory, path: parent.path,
                                     message: "cannot create directory \(parent.path): \(Self.reason(creating: parent, error)); "
                                         + "check that the reports directory is writable")
        }
        let run = parent.appendingPathComponent(runID)
        let exists = EvidenceWriteError(.runDirectoryExists, path: run.path,
                                        message: "run directory \(run.path) already exists and evidence is never overwritten; "
                                            + "choose another run id, or move the existing directory away")
        guard !FileManager.default.fileExists(atPath: run.path) else { throw exists }
        let staging = parent.appendingPathComponent("." + runID + ".new")
        guard try DurableFile.makeNewDirectory(staging.path) else {
            throw EvidenceWriteError(.runDirectoryExists, path: staging.path,
                                     message: "\(staging.path) exists: another matrix process is starting this run, or one was killed "
                                         + "while starting it; remove it and start again")
        }
        do {
            try prepare(RunDirectory(url: staging))
            DurableFile.syncDirectory(staging.path)
            // rename(2) replaces only an empty directory; a run directory is never empty.
            guard rename(staging.path, run.path) == 0 else {
                let number = errno
                if number == ENOTEMPTY || number == EEXIST { throw exists }
                throw EvidenceWriteError.system(.cannotCreateDirectory, path: run.path, doing: "create directory", errno: number)
            }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        DurableFile.syncDirectory(parent.path)
        return RunDirectory(url: run)
    }

    /// Creates a run directory at exactly `url` (its parent must exist), for runs assembled from others.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `runDirectoryExists` when something exists at `url`,
    ///   `cannotCreateDirectory` otherwise.
    public static func create(at url: URL) throws -> RunDirectory {
        guard try DurableFile.makeNewDirectory(url.path) else {
            throw EvidenceWriteError(.runDirectoryExists, path: url.path,
                                     message: "\(url.path) already exists and evidence is never overwritten; choose another directory")
        }
        DurableFile.syncDirectory(url.deletingLastPathComponent().path)
        return RunDirectory(url: url)
    }

    /// A file-system-safe form of a build string: `1.4 (212)` → `1.4-212`.
    ///
    /// ASCII letters, digits, `.` and `_` are kept; every run of other characters becomes one `-`;
    /// leading and trailing `-` and `.` are removed; at most 64 characters are kept. An empty result, an empty
    /// build, and `local` (the embedded environment's build) give `unspecified`.
    public static func buildSlug(_ build: String) -> String {
        let trimmed = build.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed.lowercased() == "local" { return unspecifiedBuild }
        var slug = ""
        var pendingDash = false
        for scalar in trimmed.unicodeScalars {
            let keep = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_")
            if keep {
                if pendingDash && !slug.isEmpty { slug.append("-") }
                pendingDash = false
                slug.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        let cut = String(slug.prefix(64))
        let result = cut.trimmingCharacters(in: CharacterSet(charactersIn: "-."))
        return result.isEmpty ? unspecifiedBuild : result
    }

    /// The SHA-256 of every regular file in the directory except `run.json` and hidden (temporary) files.
    ///
    /// - Returns: lower-case hex digests by path relative to the run directory, `/`-separated.
    /// - Throws: ``EvidenceWriteError`` with code `cannotHash` when a file cannot be read.
    public func fileDigests() throws -> [String: String] {
        try fileDigests(known: [:])
    }

    /// As ``fileDigests()``, taking the digests in `known` (by relative path) as they are, for files whose bytes
    /// were hashed as they were written.
    func fileDigests(known: [String: String]) throws -> [String: String] {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw EvidenceWriteError(.cannotHash, path: url.path, message: "cannot list \(url.path); check that the run directory is readable")
        }
        var digests: [String: String] = [:]
        var irregular: String?
        FileIntegrity.walk(url, prefix: "") { path, isRegular in
            if path == Self.manifestFileName || path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { return }
            if isRegular { digests[path] = known[path] ?? "" } else if irregular == nil { irregular = path }
        }
        if let irregular {
            throw EvidenceWriteError(.cannotHash, path: url.appendingPathComponent(irregular).path,
                                     message: "\(url.appendingPathComponent(irregular).path) is not a regular file (a symbolic link, FIFO or device); "
                                         + "a run directory holds only regular files, so move it out first")
        }
        for (path, digest) in digests where digest.isEmpty {
            digests[path] = try Digests.sha256.hexDigest(ofFileAt: url.appendingPathComponent(path))
        }
        return digests
    }

    /// Checks that every entry below the directory is a regular file or a directory, as `matrix` writes them.
    ///
    /// - Throws: ``EvidenceReadError`` with code `notRegularFile` naming the first symbolic link, FIFO, device
    ///   or socket.
    public func checkOnlyRegularFiles() throws {
        var irregular: String?
        FileIntegrity.walk(url, prefix: "") { path, isRegular in
            if !isRegular, irregular == nil { irregular = path }
        }
        if let irregular {
            let path = url.appendingPathComponent(irregular).path
            throw EvidenceReadError(.notRegularFile, path: path,
                                    message: "\(path) is not a regular file (a symbolic link, FIFO or device); matrix writes only regular files "
                                        + "in a run directory, so this one was not written by matrix; move it out first")
        }
    }

    /// Replaces (or creates) the file `name` in the run directory atomically.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotWrite` or `cannotSync`.
    public func write(_ data: Data, named name: String) throws {
        try Self.checkComponent(name, what: "file name")
        try DurableFile.replace(url.appendingPathComponent(name), with: data)
    }

    static func checkComponent(_ text: String, what: String) throws {
        let bad = text.isEmpty || text == "." || text == ".." || text.contains("/") || text.contains("\0") || text.utf8.count > 200
        if bad {
            throw EvidenceWriteError(.invalidPathComponent, path: text,
                                     message: "the \(what) \"\(text)\" cannot name a directory; use a non-empty name without '/'")
        }
    }

    /// A new run's id, `20261129T130950Z-3f2a9c01`: sortable by its start second, then 32 random bits, so runs
    /// started in the same second (CI jobs sharing `--out`) almost never draw the same one; ``createNew(root:environment:build:runID:attempts:makeID:preparing:)``
    /// draws again when they do.
    public static func makeRunID(now: Date = Date()) -> String {
        let stamp = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted)
            .format(now)
        return stamp + "-" + String(format: "%08x", UInt32.random(in: 0...UInt32.max))
    }

    /// Whether `text` may be given as a run id (`--run-id`): 1 to 64 ASCII letters, digits, `.`, `_` and `-`,
    /// not starting with `.` or `-`. A run id names a directory and appears in every record and on terminals.
    public static func isValidRunID(_ text: String) -> Bool {
        guard (1...64).contains(text.utf8.count), let first = text.utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "-") else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// Creates a new run's directory as ``create(root:environment:build:runID:preparing:)`` does, under `runID`
    /// when one is given, else under a fresh ``makeRunID(now:)``, drawn again (up to `attempts` times) when
    /// another process creates a run of that id at the same moment.
    ///
    /// Creation is atomic (a staging directory made with `mkdir(2)`, then `rename(2)`), so of two processes
    /// that draw the same id exactly one gets it; the other draws again.
    ///
    /// - Parameters:
    ///   - makeID: draws an id when none is given.
    ///   - prepare: writes the first files into the staging directory, given the run id it is for.
    /// - Throws: ``EvidenceWriteError`` `runDirectoryExists` when the given `runID` is taken (or, without one,
    ///   `attempts` ids in a row were), and what ``create(root:environment:build:runID:preparing:)`` throws.
    public static func createNew(root: URL, environment: String, build: String, runID: String? = nil, attempts: Int = 16,
                                 makeID: () -> String = { makeRunID() },
                                 preparing prepare: (RunDirectory, String) throws -> Void) throws -> RunDirectory {
        var attempt = 0
        while true {
            attempt += 1
            let id = runID ?? makeID()
            do {
                return try create(root: root, environment: environment, build: build, runID: id) { staging in
                    try prepare(staging, id)
                }
            } catch let error as EvidenceWriteError where error.code == .runDirectoryExists && runID == nil && attempt < max(1, attempts) {
                continue
            }
        }
    }
}
