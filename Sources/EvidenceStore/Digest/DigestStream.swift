import COpenSSL

/// A SHA-256 computed over bytes as they are written, so that a file's digest is known when it is closed
/// without reading it back: the evidence of a run can be hundreds of megabytes.
final class DigestStream {
    private let pointer: OpaquePointer?
    private var failed = false

    init() {
        pointer = EVP_MD_CTX_new()
        if pointer == nil || EVP_DigestInit_ex(pointer, EVP_sha256(), nil) != 1 { failed = true }
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    /// Adds bytes.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard !failed, bytes.count > 0 else { return }
        if EVP_DigestUpdate(pointer, bytes.baseAddress, bytes.count) != 1 { failed = true }
    }

    /// The digest of every byte added, as 64 lower-case hexadecimal digits; `nil` when libcrypto failed
    /// (then hash the file instead). Call once.
    func hexDigest() -> String? {
        guard !failed else {
            ERR_clear_error()
            return nil
        }
        failed = true
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(pointer, &digest, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return digest.prefix(Int(length)).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
