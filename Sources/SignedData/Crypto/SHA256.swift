import COpenSSL
import Foundation

/// SHA-256 digests through OpenSSL's EVP interface.
public enum SHA256 {
    /// The digest of `data`.
    ///
    /// - Parameter data: Any bytes.
    /// - Returns: The 32-byte digest. Empty only if OpenSSL cannot run SHA-256 at all (never on a working
    ///   libcrypto).
    public static func hash(_ data: some DataProtocol) -> [UInt8] {
        let input = [UInt8](data)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = input.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil)
        }
        guard status == 1 else {
            _ = OpenSSLSupport.drainErrors()
            return []
        }
        return Array(digest.prefix(Int(length)))
    }

    /// The digest of `data` as 64 lower-case hexadecimal digits.
    public static func hexHash(_ data: some DataProtocol) -> String {
        hash(data).hexString
    }

    /// The digest of `data` as upper-case hex pairs joined by colons, the way certificate fingerprints are
    /// usually printed (`63:34:3A:…`).
    public static func fingerprint(_ data: some DataProtocol) -> String {
        hash(data).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }.joined(separator: ":")
    }
}
