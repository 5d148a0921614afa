import Foundation

/// SHA-256 digests: CryptoKit's `SHA256` on Apple platforms, OpenSSL's on Linux.
/// Apple: https://developer.apple.com/documentation/cryptokit/sha256
public enum SHA256 {
    /// The digest of `data`.
    ///
    /// - Parameter data: Any bytes.
    /// - Returns: The 32-byte digest. Empty only if OpenSSL cannot run SHA-256 at all (never on a working
    ///   libcrypto).
    public static func hash(_ data: some DataProtocol) -> [UInt8] {
        let hasher = SHA256Hasher()
        if data.withContiguousStorageIfAvailable({ hasher.update(UnsafeRawBufferPointer($0)) }) == nil {
            [UInt8](data).withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalize()
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

/// A SHA-256 computed over bytes as they arrive, for files too large to hold (a run's evidence can be hundreds of
/// megabytes). Not `Sendable`: one owner updates it, then finalises it once.
public final class SHA256Hasher {
    private var backend: DigestBackend

    /// A digest of nothing yet.
    public init() {
        backend = DigestBackend()
    }

    /// Adds bytes.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        backend.update(bytes)
    }

    /// The 32-byte digest of every byte added; empty only if OpenSSL cannot run SHA-256 (never on a working
    /// libcrypto). Call once.
    public func finalize() -> [UInt8] {
        backend.finalize()
    }
}

extension Sequence<UInt8> {
    /// Lower-case hexadecimal, two digits per byte, no separators.
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
