import COpenSSL
import Foundation

/// Conversions between the two encodings of an ECDSA P-256 signature.
///
/// JWS (RFC 7518 §3.4) carries ES256 signatures as the raw 64-byte concatenation r‖s, each a 32-byte
/// big-endian integer; OpenSSL produces and consumes the DER `ECDSA-Sig-Value` SEQUENCE (70–72 bytes).
public enum ECDSASignature {
    /// The length of a raw P-256 signature: 32 bytes of r followed by 32 bytes of s.
    public static let rawLength = 64

    /// Converts a DER `ECDSA-Sig-Value` to raw r‖s.
    ///
    /// - Parameter der: The DER SEQUENCE of two INTEGERs; trailing bytes are rejected.
    /// - Returns: 64 bytes, r and s left-padded with zeros to 32 bytes each.
    /// - Throws: ``SignedDataError`` `.invalidSignature` when the bytes are not one DER signature or r or s
    ///   does not fit in 32 bytes.
    public static func raw(fromDER der: some DataProtocol) throws -> [UInt8] {
        let bytes = [UInt8](der)
        let signature: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            if let parsed, let cursor, let base = buffer.baseAddress, cursor - base != buffer.count {
                ECDSA_SIG_free(parsed)
                return nil
            }
            return parsed
        }
        guard let signature else {
            throw OpenSSLSupport.error(.invalidSignature, "The signature is not a DER ECDSA-Sig-Value.")
        }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw OpenSSLSupport.error(.invalidSignature, "The DER signature lacks r or s.")
        }
        var raw = [UInt8](repeating: 0, count: rawLength)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> (Int32, Int32) in
            guard let base = buffer.baseAddress else { return (-1, -1) }
            return (BN_bn2binpad(r, base, 32), BN_bn2binpad(s, base + 32, 32))
        }
        guard written == (32, 32) else {
            throw OpenSSLSupport.error(.invalidSignature, "The DER signature's r or s is longer than 32 bytes, so it is not a P-256 signature.")
        }
        return raw
    }

    /// Converts raw r‖s to a DER `ECDSA-Sig-Value`.
    ///
    /// - Parameter raw: Exactly 64 bytes.
    /// - Returns: The DER encoding (at most 72 bytes).
    /// - Throws: ``SignedDataError`` `.invalidSignature` when `raw` is not 64 bytes long.
    public static func der(fromRaw raw: some DataProtocol) throws -> [UInt8] {
        let bytes = [UInt8](raw)
        guard bytes.count == rawLength else {
            throw SignedDataError(.invalidSignature, "A raw ES256 signature is \(rawLength) bytes (r‖s); got \(bytes.count).")
        }
        guard let signature = ECDSA_SIG_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate an ECDSA signature.")
        }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(bytes, 32, nil)
        let s = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress.map { $0 + 32 }, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw OpenSSLSupport.error(.cryptoFailure, "Could not build an ECDSA signature from r and s.")
        }
        return try OpenSSLSupport.encodeDER { i2d_ECDSA_SIG(signature, $0) }
    }
}
