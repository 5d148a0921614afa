import COpenSSL
import Foundation
import Signing

/// An X.509 certificate parsed by OpenSSL.
///
/// A value type: equality and hashing use the DER bytes. Immutable and `Sendable`.
public struct X509Certificate: Sendable, Hashable, CustomStringConvertible {
    let handle: Handle
    /// The certificate's DER encoding, exactly as parsed.
    public let derRepresentation: [UInt8]

    /// Owns one OpenSSL `X509` reference.
    ///
    /// `@unchecked Sendable`: the certificate is never modified after parsing; OpenSSL allows concurrent
    /// read-only use of an `X509` (its lazily computed extension cache is filled under OpenSSL's own lock).
    final class Handle: @unchecked Sendable {
        let pointer: OpaquePointer

        init(taking pointer: OpaquePointer) {
            self.pointer = pointer
        }

        deinit {
            X509_free(pointer)
        }
    }

    /// Takes ownership of one `X509` reference.
    init(taking pointer: OpaquePointer) throws {
        let handle = Handle(taking: pointer)
        self.derRepresentation = try OpenSSLSupport.encodeDER { i2d_X509(handle.pointer, $0) }
        self.handle = handle
    }

    /// Parses a DER-encoded certificate.
    ///
    /// - Parameter der: One DER `Certificate`; trailing bytes are rejected.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when the bytes are not one certificate.
    public init(derRepresentation der: some DataProtocol) throws {
        let bytes = [UInt8](der)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_X509(nil, &cursor, buffer.count)
            if let parsed, let cursor, let base = buffer.baseAddress, cursor - base != buffer.count {
                X509_free(parsed)
                return nil
            }
            return parsed
        }
        guard let parsed else {
            throw OpenSSLSupport.error(.invalidCertificate, "The \(bytes.count) bytes are not one DER X.509 certificate.")
        }
        try self.init(taking: parsed)
    }

    /// Parses the first `-----BEGIN CERTIFICATE-----` block of a PEM text.
    ///
    /// Anything before the block, such as an `openssl x509 -text` dump, is skipped.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when no certificate block can be read.
    public init(pemRepresentation pem: String) throws {
        guard let first = try Self.certificates(pemRepresentation: pem).first else {
            throw SignedDataError(.invalidCertificate, "The text contains no -----BEGIN CERTIFICATE----- block.")
        }
        self = first
    }

    /// Parses every certificate block of a PEM text, in order.
    ///
    /// - Returns: The certificates; empty when there is no certificate block.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when a block is present but cannot be decoded.
    public static func certificates(pemRepresentation pem: String) throws -> [X509Certificate] {
        let blocks = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        return try blocks.map { block in
            let text = "-----BEGIN CERTIFICATE-----" + block
            let parsed = try OpenSSLSupport.withReadBIO(Array(text.utf8)) { bio in
                PEM_read_bio_X509(bio, nil, nil, nil)
            }
            guard let parsed else {
                throw OpenSSLSupport.error(.invalidCertificate, "A CERTIFICATE PEM block could not be decoded.")
            }
            return try X509Certificate(taking: parsed)
        }
    }

    /// The certificate as standard base64 (with padding) of its DER, the form used in a JWS `x5c` header.
    public var base64EncodedDER: String {
        Data(derRepresentation).base64EncodedString()
    }

    /// The certificate as a PEM block with 64-column lines and a trailing newline.
    public var pemRepresentation: String {
        let base64 = Data(derRepresentation).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    /// The subject name in RFC 2253 form (last RDN first), e.g.
    /// `C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3` for Apple Root CA - G3.
    public var subjectSummary: String {
        Self.summary(of: X509_get_subject_name(handle.pointer))
    }

    /// The issuer name in RFC 2253 form.
    public var issuerSummary: String {
        Self.summary(of: X509_get_issuer_name(handle.pointer))
    }

    /// The serial number as lower-case hexadecimal without leading zeros (`"0"` for zero).
    public var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(handle.pointer),
              let number = ASN1_INTEGER_to_BN(serial, nil) else {
            _ = OpenSSLSupport.drainErrors()
            return ""
        }
        defer { BN_free(number) }
        guard let hex = BN_bn2hex(number) else { return "" }
        defer { skm_openssl_free(hex) }
        let text = String(cString: hex).lowercased()
        let trimmed = text.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    /// The start of the validity period (second precision).
    public var notBefore: Date {
        Self.date(of: X509_get0_notBefore(handle.pointer))
    }

    /// The end of the validity period (second precision).
    public var notAfter: Date {
        Self.date(of: X509_get0_notAfter(handle.pointer))
    }

    /// Whether `date` lies within `notBefore ... notAfter` (inclusive).
    public func isValid(at date: Date) -> Bool {
        (notBefore ... notAfter).contains(date)
    }

    /// The SHA-256 fingerprint of the DER, upper-case hex pairs joined by colons.
    public var sha256Fingerprint: String {
        SHA256.fingerprint(derRepresentation)
    }

    /// The subject public key as a P-256 ES256 verification key.
    ///
    /// - Throws: ``SignedDataError`` `.invalidKey` when the key is not EC P-256 (for example the P-384 key of
    ///   Apple Root CA - G3).
    public func publicKey() throws -> P256PublicKey {
        guard let key = X509_get_pubkey(handle.pointer) else {
            throw OpenSSLSupport.error(.invalidKey, "The certificate's public key could not be decoded.")
        }
        let evpKey = EVPKey(taking: key)
        guard evpKey.isP256 else {
            throw SignedDataError(.invalidKey, "Expected an EC P-256 public key, found \(evpKey.summary).")
        }
        return try P256PublicKey(derRepresentation: evpKey.publicKeyDER())
    }

    /// The subject public key's kind, e.g. `EC prime256v1`, `EC secp384r1` or `RSA 4096`.
    public var publicKeySummary: String {
        guard let key = X509_get_pubkey(handle.pointer) else {
            _ = OpenSSLSupport.drainErrors()
            return "undecodable key"
        }
        return EVPKey(taking: key).summary
    }

    /// The value of an extension: the contents of its `extnValue` OCTET STRING (DER of the extension's own
    /// type; `[0x05, 0x00]` for Apple's NULL-valued marker extensions).
    ///
    /// - Parameter oid: Dotted decimal, e.g. `"1.2.840.113635.100.6.11.1"`.
    /// - Returns: The bytes, or `nil` when the certificate has no such extension or `oid` is not a valid
    ///   dotted OID.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else {
            _ = OpenSSLSupport.drainErrors()
            return nil
        }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(handle.pointer, object, -1)
        guard index >= 0,
              let ext = X509_get_ext(handle.pointer, index),
              let data = X509_EXTENSION_get_data(ext) else {
            return nil
        }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Whether the certificate carries an extension with this dotted OID.
    public func hasExtension(oid: String) -> Bool {
        extensionValue(oid: oid) != nil
    }

    /// `subject (issued by issuer)`.
    public var description: String {
        "\(subjectSummary) (issued by \(issuerSummary))"
    }

    /// Whether both certificates have the same DER bytes.
    public static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derRepresentation)
    }

    static func summary(of name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let flags = skm_name_print_flags()
        let bytes = (try? OpenSSLSupport.collectBIO { bio in
            X509_NAME_print_ex(bio, name, 0, flags) >= 0
        }) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func date(of time: UnsafePointer<ASN1_TIME>?) -> Date {
        guard let time, let epoch = ASN1_TIME_set(nil, 0) else {
            _ = OpenSSLSupport.drainErrors()
            return Date(timeIntervalSince1970: 0)
        }
        defer { ASN1_TIME_free(epoch) }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, epoch, time) == 1 else {
            _ = OpenSSLSupport.drainErrors()
            return Date(timeIntervalSince1970: 0)
        }
        return Date(timeIntervalSince1970: Double(days) * 86_400 + Double(seconds))
    }
}
