import FileIO
import Foundation
import Signing

/// Computes SHA-256 digests for run manifests: the matrix file, every file of a run directory, salted account
/// identifiers.
package protocol SHA256Digesting: Sendable {
    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    func hexDigest(of bytes: [UInt8]) -> String

    /// The digest of the file at `url`, read in chunks, as 64 lower-case hexadecimal digits.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotHash` when the file cannot be read.
    func hexDigest(ofFileAt url: URL) throws -> String
}

/// The SHA-256 implementation run directories use.
package enum Digests {
    package static let sha256: any SHA256Digesting = StreamedSHA256()
}

/// SHA-256 through the `Signing` target (CryptoKit on Apple platforms, libcrypto on Linux), files read in chunks.
package struct StreamedSHA256: SHA256Digesting {
    /// Bytes read from a file per update.
    static let chunkSize = 1 << 16

    package func hexDigest(of bytes: [UInt8]) -> String {
        SHA256.hexHash(bytes)
    }

    package func hexDigest(ofFileAt url: URL) throws -> String {
        let handle: FileHandle
        do {
            // Only the files of a run are hashed: a link could lead out of it, a FIFO or a device never ends.
            handle = FileHandle(fileDescriptor: try InputFile.openRegular(url.path, followingLinks: false), closeOnDealloc: true)
        } catch {
            throw EvidenceWriteError(.cannotHash, path: url.path,
                                     message: "cannot compute the SHA-256 of \(error.about(url.path)); "
                                         + "a run directory holds only regular files that matrix can read")
        }
        defer { try? handle.close() }
        let hasher = SHA256Hasher()
        do {
            while let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                chunk.withUnsafeBytes { hasher.update($0) }
            }
        } catch {
            throw EvidenceWriteError(.cannotHash, path: url.path,
                                     message: "cannot read \(url.path) to compute its SHA-256: \(error.localizedDescription); "
                                         + "check that the run directory is readable")
        }
        return hasher.finalize().hexString
    }
}
