import Foundation

/// Conversions between the two encodings of an ECDSA P-256 signature.
///
/// JWS (RFC 7518 §3.4) carries ES256 signatures as the raw 64-byte concatenation r‖s, each a 32-byte
/// big-endian integer; X.509 and most libraries use the DER `ECDSA-Sig-Value` SEQUENCE (70–72 bytes).
/// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
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
        try SignatureBackend.raw(fromDER: [UInt8](der))
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
        return try SignatureBackend.der(fromRaw: bytes)
    }
}
