/// The key-identifier rules of OpenSSL's `X509_V_FLAG_X509_STRICT` that Apple's App Store Server Library relies on
/// (RFC 5280 §4.2.1.1 and §4.2.1.2): every certificate but a self-signed root carries an Authority Key
/// Identifier, and every CA certificate a Subject Key Identifier. Security has no strict switch, so on Apple
/// platforms a strict chain check adds these after Security has verified the chain.
enum StrictChainCheck {
    static let subjectKeyIdentifier = "2.5.29.14"
    static let authorityKeyIdentifier = "2.5.29.35"
    static let basicConstraints = "2.5.29.19"

    /// The first rule a verified chain (leaf first) breaks, or `nil`.
    static func problem(in chain: [X509Certificate]) -> String? {
        for certificate in chain {
            let selfSigned = certificate.fields.subject == certificate.fields.issuer
            if !selfSigned, !certificate.hasExtension(oid: authorityKeyIdentifier) {
                return "\(certificate.subjectSummary) has no Authority Key Identifier"
            }
            if isCA(certificate), !certificate.hasExtension(oid: subjectKeyIdentifier) {
                return "the CA certificate \(certificate.subjectSummary) has no Subject Key Identifier"
            }
        }
        return nil
    }

    /// Whether the certificate's basic constraints say it is a CA (`cA` TRUE).
    static func isCA(_ certificate: X509Certificate) -> Bool {
        guard let value = certificate.extensionValue(oid: basicConstraints) else { return false }
        let reader = DERReader(bytes: value)
        guard let sequence = try? reader.element(at: 0, limit: value.count), sequence.tag == DERElement.sequence,
              let first = try? reader.children(of: sequence).first, first.tag == DERElement.boolean else { return false }
        return reader.contents(of: first).first.map { $0 != 0 } ?? false
    }
}
