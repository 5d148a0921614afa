import Foundation
import Signing

/// An X.509 certificate.
///
/// Its fields are read from the DER by this package on every platform (``CertificateFields``); whether the bytes
/// are a certificate at all is also asked of the platform's own library when it is parsed (OpenSSL on Linux,
/// Security's `SecCertificateCreateWithData` on Apple platforms), which also verifies chains
/// (``verifyChain(leaf:intermediates:roots:at:strict:)``). A value type: equality and hashing use the DER
/// bytes. Immutable and `Sendable`.
public struct X509Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding, exactly as parsed.
    public let derRepresentation: [UInt8]
    let fields: CertificateFields

    /// Parses a DER-encoded certificate.
    ///
    /// - Parameter der: One DER `Certificate`; trailing bytes are rejected.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when the bytes are not one certificate.
    public init(derRepresentation der: some DataProtocol) throws {
        let bytes = [UInt8](der)
        do {
            fields = try CertificateFields(der: bytes)
        } catch {
            throw SignedDataError(.invalidCertificate, "The \(bytes.count) bytes are not one DER X.509 certificate: \(error).")
        }
        guard CertificateBackend.accepts(bytes) else {
            throw SignedDataError(.invalidCertificate, "The \(bytes.count) bytes are not one DER X.509 certificate.")
        }
        derRepresentation = bytes
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
            guard let end = block.range(of: "-----END CERTIFICATE-----") else {
                throw SignedDataError(.invalidCertificate, "A CERTIFICATE PEM block has no -----END CERTIFICATE----- line.")
            }
            let body = block[..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw SignedDataError(.invalidCertificate, "A CERTIFICATE PEM block is not base64.")
            }
            return try X509Certificate(derRepresentation: der)
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
        fields.subject.rfc2253
    }

    /// The issuer name in RFC 2253 form.
    public var issuerSummary: String {
        fields.issuer.rfc2253
    }

    /// The serial number as lower-case hexadecimal without leading zeros (`"0"` for zero; a negative serial,
    /// which RFC 5280 forbids, with a leading `-`).
    public var serialNumberHex: String {
        var bytes = fields.serial
        var sign = ""
        if let first = bytes.first, first & 0x80 != 0 {
            // Two's complement: the magnitude is the complement plus one.
            sign = "-"
            bytes = bytes.map { ~$0 }
            for index in bytes.indices.reversed() {
                bytes[index] &+= 1
                if bytes[index] != 0 { break }
            }
        }
        let text = bytes.hexString.drop { $0 == "0" }
        return text.isEmpty ? "0" : sign + text
    }

    /// The start of the validity period (second precision).
    public var notBefore: Date {
        fields.notBefore
    }

    /// The end of the validity period (second precision).
    public var notAfter: Date {
        fields.notAfter
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
        guard fields.isP256 else {
            throw SignedDataError(.invalidKey, "Expected an EC P-256 public key, found \(fields.publicKeySummary).")
        }
        return try P256PublicKey(derRepresentation: fields.subjectPublicKeyInfo)
    }

    /// The subject public key's kind, e.g. `EC prime256v1`, `EC secp384r1` or `RSA 4096`.
    public var publicKeySummary: String {
        fields.publicKeySummary
    }

    /// The value of an extension: the contents of its `extnValue` OCTET STRING (DER of the extension's own
    /// type; `[0x05, 0x00]` for Apple's NULL-valued marker extensions).
    ///
    /// - Parameter oid: Dotted decimal, e.g. `"1.2.840.113635.100.6.11.1"`.
    /// - Returns: The bytes, or `nil` when the certificate has no such extension or `oid` is not a valid
    ///   dotted OID.
    public func extensionValue(oid: String) -> [UInt8]? {
        fields.extensions[oid]
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
}
