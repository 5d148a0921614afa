import COpenSSL
import Foundation

/// An ECDSA P-256 private key that produces ES256 signatures in the raw r‖s form JWS uses.
///
/// The key is parsed once; every signature reuses the parsed `EVP_PKEY` and a digest-sign context that was
/// initialised once and is cloned per call, so signing costs one clone plus one ECDSA operation.
/// Immutable and `Sendable`: sign from any number of tasks at once.
public struct P256PrivateKey: Sendable {
    let key: EVPKey
    private let signer: SigningContext

    init(checking key: EVPKey) throws {
        guard key.isP256 else {
            throw SignedDataError(.invalidKey, "Expected an EC P-256 private key, found \(key.summary).")
        }
        self.key = key
        self.signer = try SigningContext(key: key)
    }

    /// Loads a key from PEM: SEC1 `EC PRIVATE KEY` or PKCS#8 `PRIVATE KEY` (unencrypted).
    ///
    /// Text before the `-----BEGIN` line is skipped.
    /// - Throws: ``SignedDataError`` `.invalidKey` when no private key can be read or it is not P-256.
    public init(pemRepresentation pem: String) throws {
        let parsed = try OpenSSLSupport.withReadBIO(Array(pem.utf8)) { bio in
            // A callback that supplies no passphrase, so an encrypted key fails instead of prompting on a TTY.
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidKey, "No unencrypted EC PRIVATE KEY or PRIVATE KEY PEM block could be read.")
        }
        try self.init(checking: EVPKey(taking: parsed))
    }

    /// Generates a new random key.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL cannot generate a key.
    public static func generate() throws -> P256PrivateKey {
        guard let generated = skm_generate_p256_key() else {
            throw OpenSSLSupport.error(.cryptoFailure, "OpenSSL could not generate a P-256 key.")
        }
        return try P256PrivateKey(checking: EVPKey(taking: generated))
    }

    /// The matching public key.
    public var publicKey: P256PublicKey {
        // A P-256 private key's EVP_PKEY also serves as its public key.
        P256PublicKey(unchecked: key)
    }

    /// The key as an unencrypted PKCS#8 `-----BEGIN PRIVATE KEY-----` PEM.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL cannot encode it.
    public func pemRepresentation() throws -> String {
        let bytes = try OpenSSLSupport.collectBIO { bio in
            PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Signs `message` with ES256 (ECDSA P-256 over SHA-256).
    ///
    /// - Parameter message: The bytes to sign (for a JWS, the ASCII signing input `header.payload`).
    /// - Returns: The raw 64-byte r‖s signature.
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL fails to sign.
    public func signature(for message: some DataProtocol) throws -> [UInt8] {
        let der = try message.withContiguousStorageIfAvailable { try signer.sign($0) } ?? [UInt8](message).withUnsafeBufferPointer { try signer.sign($0) }
        return try ECDSASignature.raw(fromDER: der)
    }

    /// A signer for messages that all start with `prefix` (a JWS header), which it hashes once: each signature
    /// then hashes only the rest of its message.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL cannot hash the prefix.
    func signer(prefixedBy prefix: [UInt8]) throws -> PrefixedSigner {
        PrefixedSigner(context: try SigningContext(key: key, prefix: prefix))
    }
}

/// Signs messages that start with a fixed prefix; see ``P256PrivateKey/signer(prefixedBy:)``.
struct PrefixedSigner: Sendable {
    fileprivate let context: SigningContext

    /// The raw 64-byte r‖s ES256 signature of the prefix followed by `rest`.
    ///
    /// - Throws: ``SignedDataError`` `.cryptoFailure` if OpenSSL fails to sign.
    func signature(forRest rest: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        try ECDSASignature.raw(fromDER: context.sign(rest))
    }
}

extension P256PublicKey {
    /// Wraps a key already known to be P-256.
    init(unchecked key: EVPKey) {
        self.key = key
    }
}

/// A digest-sign context initialised once for a key (and a prefix of every message, if given); each signature
/// works on a clone of it.
///
/// `@unchecked Sendable`: `template` is never modified after init; the only operation on it afterwards,
/// `EVP_MD_CTX_copy_ex`, reads it, and that read is serialised by `lock` because OpenSSL does not promise
/// that copying a context concurrently is safe. Signing itself happens on the private clone, outside the lock.
private final class SigningContext: @unchecked Sendable {
    private let template: OpaquePointer
    private let lock = NSLock()

    /// - Parameter prefix: bytes that start every message signed, hashed into the template once.
    init(key: EVPKey, prefix: [UInt8] = []) throws {
        guard let template = EVP_MD_CTX_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a digest context.")
        }
        guard EVP_DigestSignInit_ex(template, nil, "SHA256", nil, nil, key.pointer, nil) == 1 else {
            EVP_MD_CTX_free(template)
            throw OpenSSLSupport.error(.invalidKey, "OpenSSL cannot sign ES256 with this key.")
        }
        guard prefix.isEmpty || EVP_DigestSignUpdate(template, prefix, prefix.count) == 1 else {
            EVP_MD_CTX_free(template)
            throw OpenSSLSupport.error(.cryptoFailure, "OpenSSL could not hash the start of the messages to sign.")
        }
        self.template = template
    }

    deinit {
        EVP_MD_CTX_free(template)
    }

    /// Signs `message` and returns the DER signature.
    func sign(_ message: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a digest context.")
        }
        defer { EVP_MD_CTX_free(context) }
        let copied = lock.withLock { EVP_MD_CTX_copy_ex(context, template) }
        guard copied == 1 else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not clone the signing context.")
        }
        // The clone is used once, so OpenSSL may finalise it in place instead of duplicating it again.
        EVP_MD_CTX_set_flags(context, EVP_MD_CTX_FLAG_FINALISE)
        var signature = [UInt8](repeating: 0, count: 80)
        var length = signature.count
        // Update and final rather than one-shot EVP_DigestSign, which refuses a context that has hashed a prefix.
        let status = EVP_DigestSignUpdate(context, message.baseAddress, message.count) == 1
            ? EVP_DigestSignFinal(context, &signature, &length) : 0
        guard status == 1 else {
            throw OpenSSLSupport.error(.cryptoFailure, "OpenSSL failed to produce an ES256 signature.")
        }
        return Array(signature.prefix(length))
    }
}
