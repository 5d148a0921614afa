import Foundation
import FileIO
import MatrixJSON
import MatrixModel

/// How `run.json` is written and read, and the digests a manifest records.
extension RunManifest {
    /// A salted SHA-256 of a real account identifier (a Sandbox Apple Account e-mail, say), for
    /// ``AccountRef/hash``: `sha256(salt + ":" + identifier)` with the identifier trimmed and lower-cased, as
    /// lower-case hex. The identifier itself never reaches evidence.
    public static func accountHash(identifier: String, salt: String) -> String {
        let normalised = identifier.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return Digests.sha256.hexDigest(of: Array((salt + ":" + normalised).utf8))
    }

    /// The manifest as `run.json` writes it: pretty-printed, sorted keys, unescaped slashes, trailing newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Every field is a string, number, array or dictionary of them: encoding cannot fail.
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Reads a manifest.
    ///
    /// - Throws: ``EvidenceReadError`` with code `unsupportedManifest` when the data is not a manifest, names a
    ///   key twice (``StrictJSON``) or has a `manifestVersion` this version does not know.
    public static func decode(_ data: Data, path: String) throws -> RunManifest {
        let tree: JSONValue
        do {
            tree = try StrictJSON.parse(data)
        } catch {
            throw EvidenceReadError(.unsupportedManifest, path: path,
                                    message: "\(path) is not \(error.isDuplicateKey ? "a valid" : "a") run manifest: \(error.located(in: path))")
        }
        guard let version = tree.objectValue?["manifestVersion"]?.intValue else {
            throw EvidenceReadError(.unsupportedManifest, path: path, message: "\(path) is not a run manifest (no manifestVersion)")
        }
        guard version == currentVersion else {
            throw EvidenceReadError(.unsupportedManifest, path: path,
                                    message: "\(path) has manifestVersion \(version); this matrix reads version \(currentVersion), "
                                        + "so use the matrix version that wrote the run")
        }
        do {
            return try StrictJSON.decode(RunManifest.self, from: data)
        } catch {
            throw EvidenceReadError(.unsupportedManifest, path: path,
                                    message: "\(path) is not a valid run manifest: \(error.located(in: path))")
        }
    }
}

extension MatrixReference {
    /// A reference that digests the matrix file's bytes (and the catalog's, when given).
    public init(path: String, contents: Data, name: String, catalog: [UInt8]? = nil) {
        self.init(path: path, sha256: Digests.sha256.hexDigest(of: [UInt8](contents)), name: name)
        catalogSHA256 = catalog.map { Digests.sha256.hexDigest(of: $0) }
    }
}
