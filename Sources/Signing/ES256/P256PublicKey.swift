import Foundation

/// An ECDSA P-256 public key that verifies ES256 signatures.
///
/// Immutable and `Sendable`; load it from a private key (``P256PrivateKey/publicKey``), SubjectPublicKeyInfo DER
/// or a `PUBLIC KEY` PEM. CryptoKit's `P256.Signing.PublicKey` on Apple platforms, an OpenSSL `EVP_PKEY` on Linux.
/// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
public struct P256PublicKey: Sendable {
    let backend: PublicKeyBackend

    init(backend: PublicKeyBackend) {
        self.backend = backend
    }

    /// Loads a key from SubjectPublicKeyInfo DER.
    ///
    /// - Throws: ``SignedDataError`` `.invalidKey` when the bytes are not an SPKI or not a P-256 key.
    public init(derRepresentation der: some DataProtocol) throws {
        backend = try PublicKeyBackend(der: [UInt8](der))
    }

    /// Loads a key from a `-----BEGIN PUBLIC KEY-----` PEM block (text before the block is skipped).
    ///
    /// - Throws: ``SignedDataError`` `.invalidKey` when no public key PEM block is found or the key is not
    ///   P-256.
    public init(pemRepresentation pem: String) throws {
        backend = try PublicKeyBackend(pem: PEMText.fromFirstBlock(pem))
    }

    /// The SubjectPublicKeyInfo DER (91 bytes for P-256).
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if the key cannot be encoded.
    public func derRepresentation() throws -> [UInt8] {
        try backend.derRepresentation()
    }

    /// Whether `signature` is a valid ES256 signature of `message`.
    ///
    /// - Parameters:
    ///   - signature: Raw r‖s, exactly 64 bytes (the JWS form). Any other length, including a DER signature,
    ///     is not valid.
    ///   - message: The signed bytes; SHA-256 is applied here.
    /// - Returns: `true` only when the signature verifies.
    public func isValidSignature(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        (try? verifySignature(signature, for: message)) != nil
    }

    /// Verifies an ES256 signature and says why when it does not verify.
    ///
    /// - Parameters:
    ///   - signature: Raw r‖s, exactly 64 bytes.
    ///   - message: The signed bytes; SHA-256 is applied here.
    /// - Throws: ``SignedDataError`` `.invalidSignature` when the signature is not 64 bytes;
    ///   `.verificationFailure` when it does not match the message and key.
    public func verifySignature(_ signature: some DataProtocol, for message: some DataProtocol) throws {
        let raw = [UInt8](signature)
        guard raw.count == ECDSASignature.rawLength else {
            throw SignedDataError(.invalidSignature, "A raw ES256 signature is \(ECDSASignature.rawLength) bytes (r‖s); got \(raw.count).")
        }
        guard try backend.isValid(raw: raw, for: [UInt8](message)) else {
            throw SignedDataError(.verificationFailure, "The ES256 signature does not match the signed data and public key.")
        }
    }
}
