#if !canImport(CryptoKit)
import COpenSSL
import Foundation

/// Owns one OpenSSL `EVP_PKEY` reference and frees it on deinit.
///
/// `@unchecked Sendable`: the key is never modified after init, and OpenSSL documents `EVP_PKEY` as safe for
/// concurrent read-only use (signing, verifying, encoding) from several threads (openssl-threads(7)).
package final class EVPKey: @unchecked Sendable {
    package let pointer: OpaquePointer

    /// Takes ownership of one reference.
    package init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Whether this is an EC key on P-256 (OpenSSL's group name `prime256v1`).
    package var isP256: Bool {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else { return false }
        return groupName == "prime256v1"
    }

    /// A short description such as `EC prime256v1`, `EC secp384r1` or `RSA 4096`.
    package var summary: String {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC: return "EC \(groupName ?? "unknown curve")"
        case EVP_PKEY_RSA: return "RSA \(EVP_PKEY_get_bits(pointer))"
        case let id: return String(cString: OBJ_nid2sn(id))
        }
    }

    private var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else {
            _ = OpenSSLSupport.drainErrors()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The SubjectPublicKeyInfo DER of the public half.
    package func publicKeyDER() throws -> [UInt8] {
        try OpenSSLSupport.encodeDER { i2d_PUBKEY(pointer, $0) }
    }
}
#endif
