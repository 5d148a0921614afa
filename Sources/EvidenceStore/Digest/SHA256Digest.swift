import COpenSSL
import Foundation
import FileIO

/// Computes SHA-256 digests for run manifests: the matrix file, every file of a run directory, salted account
/// identifiers.
///
/// Internal so that the implementation can move to the `SignedData` target's SHA-256 without touching callers.
protocol SHA256Digesting: Sendable {
    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    func hexDigest(of bytes: [UInt8]) -> String

    /// The digest of the file at `url`, read in chunks, as 64 lower-case hexadecimal digits.
    ///
    /// - Throws: ``EvidenceWriteError`` with code `cannotHash` when the file cannot be read.
    func hexDigest(ofFileAt url: URL) throws -> String
}

/// The SHA-256 implementation reporters use.
enum Digests {
    static let sha256: any SHA256Digesting = LibcryptoSHA256()
}

/// SHA-256 through OpenSSL's EVP interface (libcrypto, via the `COpenSSL` system-library target).
struct LibcryptoSHA256: SHA256Digesting {
    /// Bytes read from a file per update.
    static let chunkSize = 1 << 16

    func hexDigest(of bytes: [UInt8]) -> String {
        var context = Context()
        context.update(bytes)
        return context.finish()
    }

    func hexDigest(ofFileAt url: URL) throws -> String {
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
        var context = Context()
        do {
            while let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                context.update([UInt8](chunk))
            }
        } catch {
            throw EvidenceWriteError(.cannotHash, path: url.path,
                                     message: "cannot read \(url.path) to compute its SHA-256: \(error.localizedDescription); "
                                         + "check that the run directory is readable")
        }
        return context.finish()
    }

    /// One digest in progress; owns its `EVP_MD_CTX`.
    private struct Context: ~Copyable {
        private let pointer: OpaquePointer?
        private var failed = false

        init() {
            pointer = EVP_MD_CTX_new()
            if pointer == nil || EVP_DigestInit_ex(pointer, EVP_sha256(), nil) != 1 { failed = true }
        }

        deinit { EVP_MD_CTX_free(pointer) }

        mutating func update(_ bytes: [UInt8]) {
            guard !failed else { return }
            let status = bytes.withUnsafeBytes { raw in EVP_DigestUpdate(pointer, raw.baseAddress, raw.count) }
            if status != 1 { failed = true }
        }

        /// The hex digest, or an empty string if libcrypto could not run SHA-256 (never on a working libcrypto).
        consuming func finish() -> String {
            guard !failed else {
                ERR_clear_error()
                return ""
            }
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(pointer, &digest, &length) == 1 else {
                ERR_clear_error()
                return ""
            }
            return digest.prefix(Int(length)).map { byte in
                let text = String(byte, radix: 16)
                return byte < 16 ? "0" + text : text
            }.joined()
        }
    }
}
