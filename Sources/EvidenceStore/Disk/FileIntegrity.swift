import Foundation

/// One file's standing against a list of expected SHA-256 digests.
public struct FileFinding: Sendable, Hashable, Codable {
    /// How a file compares with its list.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Present, with the listed digest.
        case ok
        /// Present, with another digest: its bytes changed.
        case altered
        /// Listed but not present.
        case missing
        /// Present but not listed.
        case extra
        /// Present but a symbolic link, device or other non-regular file: never written by `matrix`.
        case notRegularFile
        /// Present but not readable, so its digest is unknown.
        case unreadable
        /// Present, with another digest than its list's, where the list could not hold the file's final digest: a
        /// run that has not ended lists its evidence as it was when the run started. Nothing shows its bytes
        /// unaltered.
        case unverifiable
        /// Present but not listed, in a run that has not ended: a report, or the temporary file of one
        /// (`.junit.xml.tmp`), that the run was writing when it stopped. No digest covers it; resuming the run
        /// writes it again.
        case unfinished
    }

    /// The path relative to the checked directory, `/`-separated.
    public var path: String
    /// How the file compares.
    public var status: Status
    /// The listed SHA-256 (lower-case hex), when the file is listed.
    public var expected: String?
    /// The SHA-256 of the file now, when it could be computed.
    public var actual: String?

    /// A finding.
    public init(path: String, status: Status, expected: String? = nil, actual: String? = nil) {
        self.path = path
        self.status = status
        self.expected = expected
        self.actual = actual
    }
}

/// Compares the files of a directory with a list of SHA-256 digests, as `run.json` `files` and
/// `archive.json` `files` record them.
public enum FileIntegrity {
    /// Checks every listed file and every file present.
    ///
    /// The directory is walked without following symbolic links; hidden files count like any other.
    ///
    /// - Parameters:
    ///   - directory: The directory to check.
    ///   - expected: Lower-case hex SHA-256 by path relative to `directory`.
    ///   - ignoring: Paths that are neither checked nor reported when present (e.g. `run.json` against its
    ///     own list); a listed path is checked even when it is also ignored.
    /// - Returns: One finding per path, sorted by path.
    public static func check(directory: URL, expected: [String: String], ignoring: Set<String> = []) -> [FileFinding] {
        var present: [String: FileFinding.Status?] = [:]   // nil status: a regular file to hash
        walk(directory, prefix: "") { path, isRegular in
            present[path] = isRegular ? .some(nil) : .some(.notRegularFile)
        }
        var findings: [FileFinding] = []
        for (path, digest) in expected {
            guard let kind = present[path] else {
                findings.append(FileFinding(path: path, status: .missing, expected: digest))
                continue
            }
            if let status = kind {
                findings.append(FileFinding(path: path, status: status, expected: digest))
                continue
            }
            guard let actual = try? Digests.sha256.hexDigest(ofFileAt: directory.appendingPathComponent(path)) else {
                findings.append(FileFinding(path: path, status: .unreadable, expected: digest))
                continue
            }
            findings.append(FileFinding(path: path, status: actual == digest ? .ok : .altered, expected: digest, actual: actual))
        }
        for (path, kind) in present where expected[path] == nil && !ignoring.contains(path) {
            let actual = kind == nil ? try? Digests.sha256.hexDigest(ofFileAt: directory.appendingPathComponent(path)) : nil
            findings.append(FileFinding(path: path, status: kind ?? .extra, actual: actual))
        }
        return findings.sorted { $0.path < $1.path }
    }

    /// Calls `body` with every non-directory entry below `directory` (relative path, whether it is a regular
    /// file), descending into real directories only.
    package static func walk(_ directory: URL, prefix: String, _ body: (String, Bool) -> Void) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names.sorted() {
            let path = prefix.isEmpty ? name : prefix + "/" + name
            var info = stat()
            guard lstat(directory.appendingPathComponent(name).path, &info) == 0 else {
                body(path, false)
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: walk(directory.appendingPathComponent(name), prefix: path, body)
            case S_IFREG: body(path, true)
            default: body(path, false)
            }
        }
    }
}
