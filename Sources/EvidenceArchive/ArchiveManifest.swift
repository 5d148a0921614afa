import EvidenceStore
import Foundation
import MatrixJSON
import MatrixModel

/// `archive.json`, the top-level member of a run archive: what was packed and the SHA-256 of every file of
/// the run, `run.json` included (which the run's own manifest cannot list).
///
/// An archive holds `archive.json` and the run directory `<directory>/…` beside it. Versioned by
/// `archiveVersion`; readers refuse versions they do not know.
public struct ArchiveManifest: Sendable, Hashable, Codable {
    /// The archive member name, `archive.json`.
    public static let fileName = "archive.json"
    /// The `archiveVersion` this version writes and reads.
    public static let currentVersion = 1

    /// The format's version, ``currentVersion`` when written by this version.
    public var archiveVersion: Int
    /// The version of `matrix` that packed the archive.
    public var toolVersion: String
    /// When the archive was packed, ISO 8601 with milliseconds, UTC.
    public var createdAt: String
    /// The run's id, from its `run.json`.
    public var runId: String
    /// The run's environment, from its `run.json`.
    public var environment: String
    /// The run's status when it was packed.
    public var status: RunStatus
    /// The name of the run directory inside the archive (one path component).
    public var directory: String
    /// The app's bundle id, from the run's matrix, when the matrix could be read and still had the digest
    /// recorded in `run.json`; used to check the signed data's `bundleId`.
    public var bundleId: String?
    /// SHA-256 (lower-case hex) of every file of the run directory, by path relative to it.
    public var files: [String: String]

    /// A manifest for a run being packed now.
    public init(toolVersion: String, createdAt: Date, run: RunManifest, directory: String, bundleId: String?, files: [String: String]) {
        self.archiveVersion = Self.currentVersion
        self.toolVersion = toolVersion
        self.createdAt = Timestamp.iso8601(createdAt)
        self.runId = run.runId
        self.environment = run.environment
        self.status = run.status
        self.directory = directory
        self.bundleId = bundleId
        self.files = files
    }

    /// The manifest as `archive.json` holds it: pretty-printed, sorted keys, trailing newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and a dictionary of strings: encoding cannot fail.
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Reads `archive.json`.
    ///
    /// - Throws: ``RunArchiveError`` `notAnArchive` when the data is not an archive manifest of a known version,
    ///   names a key twice (``StrictJSON``) or its `directory` is not one plain path component.
    public static func decode(_ data: Data, path: String) throws -> ArchiveManifest {
        let tree: JSONValue
        do {
            tree = try StrictJSON.parse(data)
        } catch {
            throw RunArchiveError(.notAnArchive, path: path,
                                  message: "\(path) is not \(error.isDuplicateKey ? "a valid" : "an") archive manifest: \(error.located(in: path))")
        }
        guard let version = tree.objectValue?["archiveVersion"]?.intValue else {
            throw RunArchiveError(.notAnArchive, path: path, message: "\(path) is not an archive manifest (no archiveVersion)")
        }
        guard version == currentVersion else {
            throw RunArchiveError(.notAnArchive, path: path,
                                  message: "\(path) has archiveVersion \(version); this matrix reads version \(currentVersion), so use the matrix version that packed it")
        }
        let manifest: ArchiveManifest
        do {
            manifest = try StrictJSON.decode(ArchiveManifest.self, from: data)
        } catch {
            throw RunArchiveError(.notAnArchive, path: path, message: "\(path) is not a valid archive manifest: \(error.located(in: path))")
        }
        let name = manifest.directory
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw RunArchiveError(.notAnArchive, path: path, message: "\(path) names the run directory \"\(name)\", which is not one plain directory name")
        }
        return manifest
    }
}
