#if canImport(CryptoKit)
import CryptoKit
import Foundation

// The Apple side of the ES256 and SHA-256 seam: CryptoKit, a system framework (iOS 13, macOS 10.15; the PEM and
// DER members iOS 14, macOS 11). The Linux side is Backends/OpenSSL; both give the types below the same members.
// Keys are kept as their raw bytes, which are `Sendable`, and turned into CryptoKit keys for each operation.
// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing

/// A P-256 private key, as its 32-byte scalar.
struct PrivateKeyBackend: Sendable {
    private let raw: Data
    let publicKey: PublicKeyBackend

    init(_ key: P256.Signing.PrivateKey) {
        raw = key.rawRepresentation
        publicKey = PublicKeyBackend(key.publicKey)
    }

    /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(pemrepresentation:)
    init(pem: String) throws {
        do {
            self.init(try P256.Signing.PrivateKey(pemRepresentation: pem))
        } catch {
            throw SignedDataError(.invalidKey, "No unencrypted EC PRIVATE KEY or PRIVATE KEY PEM block of a P-256 key could be read.",
                                  detail: String(describing: error))
        }
    }

    static func generate() throws -> PrivateKeyBackend {
        PrivateKeyBackend(P256.Signing.PrivateKey())
    }

    private func key() throws -> P256.Signing.PrivateKey {
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: raw)
        } catch {
            throw SignedDataError(.cryptoFailure, "CryptoKit could not rebuild a P-256 key it made.", detail: String(describing: error))
        }
    }

    /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/pemrepresentation
    func pemRepresentation() throws -> String {
        try key().pemRepresentation + "\n"
    }

    func sign(_ message: UnsafeRawBufferPointer) throws -> [UInt8] {
        var hasher = CryptoKit.SHA256()
        hasher.update(bufferPointer: message)
        return try sign(digest: hasher.finalize())
    }

    func sign(digest: CryptoKit.SHA256Digest) throws -> [UInt8] {
        do {
            return [UInt8](try key().signature(for: digest).rawRepresentation)
        } catch let error as SignedDataError {
            throw error
        } catch {
            throw SignedDataError(.cryptoFailure, "CryptoKit failed to produce an ES256 signature.", detail: String(describing: error))
        }
    }

    func signer(prefixedBy prefix: [UInt8]) throws -> PrefixedSignerBackend {
        PrefixedSignerBackend(key: self, prefix: prefix)
    }
}

/// Signs messages that start with a fixed prefix. CryptoKit signs a digest, so the prefix is hashed with each
/// message; the saving OpenSSL's cloned context gives on Linux is not needed here.
struct PrefixedSignerBackend: Sendable {
    let key: PrivateKeyBackend
    let prefix: [UInt8]

    func signature(forRest rest: UnsafeRawBufferPointer) throws -> [UInt8] {
        var hasher = CryptoKit.SHA256()
        prefix.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(bufferPointer: rest)
        return try key.sign(digest: hasher.finalize())
    }
}

/// A P-256 public key, as its SubjectPublicKeyInfo DER.
struct PublicKeyBackend: Sendable {
    private let der: Data

    init(_ key: P256.Signing.PublicKey) {
        der = key.derRepresentation
    }

    /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(derrepresentation:)
    init(der bytes: [UInt8]) throws {
        do {
            self.init(try P256.Signing.PublicKey(derRepresentation: bytes))
        } catch {
            throw SignedDataError(.invalidKey, "The bytes are not the DER SubjectPublicKeyInfo of a P-256 key.", detail: String(describing: error))
        }
    }

    init(pem: String) throws {
        do {
            self.init(try P256.Signing.PublicKey(pemRepresentation: pem))
        } catch {
            throw SignedDataError(.invalidKey, "No PUBLIC KEY PEM block of a P-256 key could be read.", detail: String(describing: error))
        }
    }

    func derRepresentation() throws -> [UInt8] {
        [UInt8](der)
    }

    /// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/isvalidsignature(_:for:)-4s8c9
    func isValid(raw: [UInt8], for message: [UInt8]) throws -> Bool {
        let key: P256.Signing.PublicKey
        do {
            key = try P256.Signing.PublicKey(derRepresentation: der)
        } catch {
            throw SignedDataError(.cryptoFailure, "CryptoKit could not rebuild a P-256 key it read.", detail: String(describing: error))
        }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// DER and raw forms of an ECDSA signature through CryptoKit's `ECDSASignature`.
/// Apple: https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
enum SignatureBackend {
    static func raw(fromDER bytes: [UInt8]) throws -> [UInt8] {
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: bytes) else {
            throw SignedDataError(.invalidSignature, "The signature is not a DER ECDSA-Sig-Value of a P-256 signature.")
        }
        return [UInt8](signature.rawRepresentation)
    }

    static func der(fromRaw bytes: [UInt8]) throws -> [UInt8] {
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) else {
            throw SignedDataError(.invalidSignature, "The 64 bytes are not a raw P-256 signature.")
        }
        return [UInt8](signature.derRepresentation)
    }
}

/// SHA-256 in progress.
/// Apple: https://developer.apple.com/documentation/cryptokit/sha256
struct DigestBackend {
    private var hasher = CryptoKit.SHA256()

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    func finalize() -> [UInt8] {
        [UInt8](hasher.finalize())
    }
}
#endif
