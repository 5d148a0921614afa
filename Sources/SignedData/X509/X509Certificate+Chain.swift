import Foundation
import Signing

extension X509Certificate {
    /// Builds and verifies a certificate chain from `leaf` to one of `roots` with the platform's verifier:
    /// OpenSSL's `X509_verify_cert` on Linux, Security's `SecTrustEvaluateWithError` with the basic X.509 policy
    /// on Apple platforms.
    ///
    /// Signatures, validity periods (at `date`, not the current time), basic constraints and path lengths,
    /// key usage and name chaining are checked. Only `roots` are trusted; any root among `intermediates` is
    /// ignored as a trust anchor. Neither checks revocation.
    /// Apple: https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
    ///
    /// - Parameters:
    ///   - leaf: The end-entity certificate.
    ///   - intermediates: Untrusted certificates that may be used to build the path.
    ///   - roots: Trust anchors (self-signed).
    ///   - date: The moment at which every certificate must be valid (second precision).
    ///   - strict: Also apply OpenSSL's `X509_V_FLAG_X509_STRICT` checks (for example that CA certificates
    ///     carry Subject and Authority Key Identifiers), as Apple's Python library does by default. On Apple
    ///     platforms Security applies its own rules, which have no such switch; `strict` then adds the key
    ///     identifier checks (every certificate but a self-signed root carries an Authority Key Identifier, every
    ///     CA certificate a Subject Key Identifier).
    /// - Returns: The verified chain, leaf first, trust anchor last.
    /// - Throws: ``SignedDataError`` `.invalidCertificate` when `roots` is empty;
    ///   `.verificationFailure` naming the platform's reason (on Linux the failing depth, subject and
    ///   `X509_verify_cert_error_string`) when the chain does not verify.
    @discardableResult
    public static func verifyChain(
        leaf: X509Certificate,
        intermediates: [X509Certificate],
        roots: [X509Certificate],
        at date: Date,
        strict: Bool = false
    ) throws -> [X509Certificate] {
        guard !roots.isEmpty else {
            throw SignedDataError(.invalidCertificate, "No root certificates are configured, so no chain can be trusted; pass at least one root.")
        }
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e14 else {
            throw SignedDataError(.verificationFailure, "The validation time \(date.timeIntervalSince1970) s since 1970 is out of range; check that signedDate is in milliseconds.")
        }
        return try CertificateBackend.verifyChain(leaf: leaf, intermediates: intermediates, roots: roots,
                                                  at: Date(timeIntervalSince1970: seconds), strict: strict)
    }
}
