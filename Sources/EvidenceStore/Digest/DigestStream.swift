import Signing

/// A SHA-256 computed over bytes as they are written, so that a file's digest is known when it is closed
/// without reading it back: the evidence of a run can be hundreds of megabytes.
package final class DigestStream {
    private var hasher: SHA256Hasher?

    package init() {
        hasher = SHA256Hasher()
    }

    /// Adds bytes.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        hasher?.update(bytes)
    }

    /// The digest of every byte added, as 64 lower-case hexadecimal digits; `nil` when the platform's SHA-256
    /// failed or the digest was already taken (then hash the file instead). Call once.
    package func hexDigest() -> String? {
        guard let digest = hasher?.finalize(), digest.count == 32 else { return nil }
        hasher = nil
        return digest.hexString
    }
}
