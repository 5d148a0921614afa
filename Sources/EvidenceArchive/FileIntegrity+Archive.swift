import EvidenceStore
import Foundation

extension FileIntegrity {
    /// The SHA-256 of every regular file below `directory`, by relative path.
    ///
    /// - Throws: ``RunArchiveError`` with code `unsupportedFile` naming a symbolic link or other non-regular
    ///   file, or ``EvidenceWriteError`` `cannotHash` when a file cannot be read.
    public static func digests(of directory: URL) throws -> [String: String] {
        var paths: [String] = []
        var irregular: [String] = []
        walk(directory, prefix: "") { path, isRegular in
            if isRegular { paths.append(path) } else { irregular.append(path) }
        }
        if let first = irregular.sorted().first {
            throw RunArchiveError(.unsupportedFile, path: first,
                                  message: "\(directory.appendingPathComponent(first).path) is not a regular file (a symbolic link or device?); "
                                      + "a run directory holds only regular files, so move it out first")
        }
        var digests: [String: String] = [:]
        for path in paths {
            digests[path] = try Digests.sha256.hexDigest(ofFileAt: directory.appendingPathComponent(path))
        }
        return digests
    }

}
