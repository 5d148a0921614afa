import COpenSSL
import Foundation

/// An ECDSA P-256 public key that verifies ES256 signatures.
///
/// Immutable and `Sendable`; load it from a certificate (``X509Certificate/publicKey()``), a private key
/// (``P256PrivateKey/publicKey``), SubjectPublicKeyInfo DER or a `PUBLIC KEY` PEM.
public struct P256PublicKey: Sendable {
    let key: EVPKey

    init(checking key: EVPKey) throws {
        guard key.isP256 else {
            throw SignedDataError(.invalidKey, "Expected an EC P-256 public key, found \(key.summary).")
        }
        self.key = key
    }

    /// Loads a key from SubjectPublicKeyInfo DER.
    ///
    /// - Throws: ``SignedDataError`` `.invalidKey` when the bytes are not an SPKI or not a P-256 key.
    public init(derRepresentation der: some DataProtocol) throws {
        let bytes = [UInt8](der)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidKey, "The bytes are not a DER SubjectPublicKeyInfo.")
        }
        try self.init(checking: EVPKey(taking: parsed))
    }

    /// Loads a key from a `-----BEGIN PUBLIC KEY-----` PEM block (text before the block is skipped).
    ///
    /// - Throws: ``SignedDataError`` `.invalidKey` when no public key PEM block is found or the key is not
    ///   P-256.
    public init(pemRepresentation pem: String) throws {
        let parsed = try OpenSSLSupport.withReadBIO(Array(pem.utf8)) { bio in
            PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidKey, "No PUBLIC KEY PEM block could be read.")
        }
        try self.init(checking: EVPKey(taking: parsed))
    }

    /// The SubjectPublicKeyInfo DER (91 bytes for P-256).
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL cannot encode the key.
    public func derRepresentation() throws -> [UInt8] {
        try key.publicKeyDER()
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
        let der = try ECDSASignature.der(fromRaw: signature)
        guard let context = EVP_MD_CTX_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a digest context.")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key.pointer, nil) == 1 else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not start ES256 verification.")
        }
        let input = [UInt8](message)
        let status = input.withUnsafeBufferPointer { buffer in
            EVP_DigestVerify(context, der, der.count, buffer.baseAddress, buffer.count)
        }
        guard status == 1 else {
            throw OpenSSLSupport.error(.verificationFailure, "The ES256 signature does not match the signed data and public key.")
        }
    }
}
