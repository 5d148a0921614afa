#if !canImport(CryptoKit)
import COpenSSL
import Foundation

// The Linux side of the ES256 and SHA-256 seam: libcrypto through COpenSSL. The Apple side is
// Backends/CryptoKit; both give the types below the same members.

/// A P-256 private key as an `EVP_PKEY`, with a digest-sign context initialised once.
struct PrivateKeyBackend: Sendable {
    let key: EVPKey
    private let signer: SigningContext

    init(checking key: EVPKey) throws {
        guard key.isP256 else {
            throw SignedDataError(.invalidKey, "Expected an EC P-256 private key, found \(key.summary).")
        }
        self.key = key
        self.signer = try SigningContext(key: key)
    }

    init(pem: String) throws {
        let parsed = try OpenSSLSupport.withReadBIO(Array(pem.utf8)) { bio in
            // A callback that supplies no passphrase, so an encrypted key fails instead of prompting on a TTY.
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidKey, "No unencrypted EC PRIVATE KEY or PRIVATE KEY PEM block could be read.")
        }
        try self.init(checking: EVPKey(taking: parsed))
    }

    static func generate() throws -> PrivateKeyBackend {
        guard let generated = skm_generate_p256_key() else {
            throw OpenSSLSupport.error(.cryptoFailure, "OpenSSL could not generate a P-256 key.")
        }
        return try PrivateKeyBackend(checking: EVPKey(taking: generated))
    }

    /// A P-256 private key's EVP_PKEY also serves as its public key.
    var publicKey: PublicKeyBackend { PublicKeyBackend(unchecked: key) }

    func pemRepresentation() throws -> String {
        let bytes = try OpenSSLSupport.collectBIO { bio in
            PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func sign(_ message: UnsafeRawBufferPointer) throws -> [UInt8] {
        try SignatureBackend.raw(fromDER: signer.sign(message))
    }

    func signer(prefixedBy prefix: [UInt8]) throws -> PrefixedSignerBackend {
        PrefixedSignerBackend(context: try SigningContext(key: key, prefix: prefix))
    }
}

/// Signs messages that start with a prefix hashed once into a template context.
struct PrefixedSignerBackend: Sendable {
    fileprivate let context: SigningContext

    func signature(forRest rest: UnsafeRawBufferPointer) throws -> [UInt8] {
        try SignatureBackend.raw(fromDER: context.sign(rest))
    }
}

/// A P-256 public key as an `EVP_PKEY`.
struct PublicKeyBackend: Sendable {
    let key: EVPKey

    init(unchecked key: EVPKey) {
        self.key = key
    }

    init(checking key: EVPKey) throws {
        guard key.isP256 else {
            throw SignedDataError(.invalidKey, "Expected an EC P-256 public key, found \(key.summary).")
        }
        self.key = key
    }

    init(der bytes: [UInt8]) throws {
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidKey, "The bytes are not a DER SubjectPublicKeyInfo.")
        }
        try self.init(checking: EVPKey(taking: parsed))
    }

    init(pem: String) throws {
        let parsed = try OpenSSLSupport.withReadBIO(Array(pem.utf8)) { bio in
            PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidKey, "No PUBLIC KEY PEM block could be read.")
        }
        try self.init(checking: EVPKey(taking: parsed))
    }

    func derRepresentation() throws -> [UInt8] {
        try key.publicKeyDER()
    }

    /// Whether the raw 64-byte signature verifies; throws only when OpenSSL cannot run the check.
    func isValid(raw: [UInt8], for message: [UInt8]) throws -> Bool {
        let der = try SignatureBackend.der(fromRaw: raw)
        guard let context = EVP_MD_CTX_new() else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not allocate a digest context.")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key.pointer, nil) == 1 else {
            throw OpenSSLSupport.error(.cryptoFailure, "Could not start ES256 verification.")
        }
        let status = message.withUnsafeBufferPointer { buffer in
            EVP_DigestVerify(context, der, der.count, buffer.baseAddress, buffer.count)
        }
        _ = OpenSSLSupport.drainErrors()
        return status == 1
    }
}

/// DER and raw forms of an ECDSA signature through `ECDSA_SIG`.
enum SignatureBackend {
    static func raw(fromDER bytes: [UInt8]) throws -> [UInt8] {
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
        var raw = [UInt8](repeating: 0, count: ECDSASignature.rawLength)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> (Int32, Int32) in
            guard let base = buffer.baseAddress else { return (-1, -1) }
            return (BN_bn2binpad(r, base, 32), BN_bn2binpad(s, base + 32, 32))
        }
        guard written == (32, 32) else {
            throw OpenSSLSupport.error(.invalidSignature, "The DER signature's r or s is longer than 32 bytes, so it is not a P-256 signature.")
        }
        return raw
    }

    static func der(fromRaw bytes: [UInt8]) throws -> [UInt8] {
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

/// SHA-256 in progress over an `EVP_MD_CTX`.
struct DigestBackend {
    private let context: DigestContext

    init() {
        context = DigestContext()
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        context.update(bytes)
    }

    func finalize() -> [UInt8] {
        context.finalize()
    }
}

/// Owns one `EVP_MD_CTX` for SHA-256; a failed step leaves it failed and the digest empty.
private final class DigestContext {
    private let pointer: OpaquePointer?
    private var failed = false

    init() {
        pointer = EVP_MD_CTX_new()
        if pointer == nil || EVP_DigestInit_ex(pointer, EVP_sha256(), nil) != 1 { failed = true }
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard !failed else { return }
        if EVP_DigestUpdate(pointer, bytes.baseAddress, bytes.count) != 1 { failed = true }
    }

    func finalize() -> [UInt8] {
        guard !failed else {
            ERR_clear_error()
            return []
        }
        failed = true
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(pointer, &digest, &length) == 1 else {
            ERR_clear_error()
            return []
        }
        return Array(digest.prefix(Int(length)))
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
    func sign(_ message: UnsafeRawBufferPointer) throws -> [UInt8] {
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
#endif
