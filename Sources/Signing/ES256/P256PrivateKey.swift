import Foundation

/// An ECDSA P-256 private key that produces ES256 signatures in the raw r‖s form JWS uses.
///
/// The key is parsed once. On Apple platforms it is CryptoKit's `P256.Signing.PrivateKey`; on Linux an OpenSSL
/// `EVP_PKEY` with a digest-sign context initialised once and cloned per call. Immutable and `Sendable`: sign from
/// any number of tasks at once.
/// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey
public struct P256PrivateKey: Sendable {
    let backend: PrivateKeyBackend

    init(backend: PrivateKeyBackend) {
        self.backend = backend
    }

    /// Loads a key from PEM: SEC1 `EC PRIVATE KEY` or PKCS#8 `PRIVATE KEY` (unencrypted).
    ///
    /// Text before the `-----BEGIN` line is skipped.
    /// - Throws: ``SignedDataError`` `.invalidKey` when no private key can be read or it is not P-256.
    public init(pemRepresentation pem: String) throws {
        backend = try PrivateKeyBackend(pem: PEMText.fromFirstBlock(pem))
    }

    /// Generates a new random key.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if the platform cannot generate a key.
    public static func generate() throws -> P256PrivateKey {
        P256PrivateKey(backend: try PrivateKeyBackend.generate())
    }

    /// The matching public key.
    public var publicKey: P256PublicKey {
        P256PublicKey(backend: backend.publicKey)
    }

    /// The key as an unencrypted PKCS#8 `-----BEGIN PRIVATE KEY-----` PEM.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if the key cannot be encoded.
    public func pemRepresentation() throws -> String {
        try backend.pemRepresentation()
    }

    /// Signs `message` with ES256 (ECDSA P-256 over SHA-256).
    ///
    /// - Parameter message: The bytes to sign (for a JWS, the ASCII signing input `header.payload`).
    /// - Returns: The raw 64-byte r‖s signature.
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if signing fails.
    public func signature(for message: some DataProtocol) throws -> [UInt8] {
        if let signature = try message.withContiguousStorageIfAvailable({ try backend.sign(UnsafeRawBufferPointer($0)) }) {
            return signature
        }
        return try [UInt8](message).withUnsafeBytes { try backend.sign($0) }
    }

    /// A signer for messages that all start with `prefix` (a JWS header), which it hashes once: each signature
    /// then hashes only the rest of its message.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if the prefix cannot be hashed.
    func signer(prefixedBy prefix: [UInt8]) throws -> PrefixedSigner {
        PrefixedSigner(backend: try backend.signer(prefixedBy: prefix))
    }
}

/// Signs messages that start with a fixed prefix; see ``P256PrivateKey/signer(prefixedBy:)``.
struct PrefixedSigner: Sendable {
    let backend: PrefixedSignerBackend

    /// The raw 64-byte r‖s ES256 signature of the prefix followed by `rest`.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if signing fails.
    func signature(forRest rest: UnsafeRawBufferPointer) throws -> [UInt8] {
        try backend.signature(forRest: rest)
    }
}

/// PEM text as the key and certificate readers take it.
enum PEMText {
    /// `text` from its first `-----BEGIN` line on (an `openssl … -text` dump before the block is skipped).
    static func fromFirstBlock(_ text: String) -> String {
        guard let start = text.range(of: "-----BEGIN") else { return text }
        return String(text[start.lowerBound...])
    }
}
