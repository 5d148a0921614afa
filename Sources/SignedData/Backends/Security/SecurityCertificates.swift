#if canImport(Security)
import Foundation
import Security
import Signing

// The Apple side of certificates: Security checks that bytes are a certificate and verifies chains with the basic
// X.509 policy, as the platform verifies any chain. The fields are read from the DER by CertificateFields on every
// platform. No libcrypto: the tool builds on a Mac with nothing but Xcode.
enum CertificateBackend {
    /// Whether Security reads the bytes as a certificate.
    /// Apple: https://developer.apple.com/documentation/security/seccertificatecreatewithdata(_:_:)
    static func accepts(_ bytes: [UInt8]) -> Bool {
        SecCertificateCreateWithData(nil, Data(bytes) as CFData) != nil
    }

    /// Apple: https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
    static func verifyChain(leaf: X509Certificate, intermediates: [X509Certificate], roots: [X509Certificate],
                            at date: Date, strict: Bool) throws -> [X509Certificate] {
        func secCertificate(_ certificate: X509Certificate) throws -> SecCertificate {
            guard let made = SecCertificateCreateWithData(nil, Data(certificate.derRepresentation) as CFData) else {
                throw SignedDataError(.invalidCertificate, "Security does not read \(certificate.subjectSummary) as a certificate.")
            }
            return made
        }
        let presented = try ([leaf] + intermediates).map(secCertificate)
        let anchors = try roots.map(secCertificate)
        var made: SecTrust?
        // Apple: https://developer.apple.com/documentation/security/sectrustcreatewithcertificates(_:_:_:)
        guard SecTrustCreateWithCertificates(presented as CFArray, SecPolicyCreateBasicX509(), &made) == errSecSuccess, let trust = made else {
            throw SignedDataError(.cryptoFailure, "Security could not start verifying the certificate chain.")
        }
        // Only the given roots are trusted, at the given time, and nothing is fetched from the network.
        guard SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
              SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess,
              SecTrustSetVerifyDate(trust, date as CFDate) == errSecSuccess,
              SecTrustSetNetworkFetchAllowed(trust, false) == errSecSuccess else {
            throw SignedDataError(.cryptoFailure, "Security could not set the roots, time and network policy of a chain check.")
        }
        let moment = ISO8601DateFormatter().string(from: date)
        var failure: CFError?
        guard SecTrustEvaluateWithError(trust, &failure) else {
            let reason = failure.map { CFErrorCopyDescription($0) as String } ?? "no reason given"
            throw SignedDataError(.verificationFailure, "The certificate chain does not verify at \(moment): \(reason).")
        }
        // The verified chain, leaf first and anchor last, mapped back to the certificates given.
        // Apple: https://developer.apple.com/documentation/security/sectrustcopycertificatechain(_:)
        let given = Dictionary(([leaf] + intermediates + roots).map { ($0.derRepresentation, $0) }) { first, _ in first }
        let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate] ?? []).compactMap { certificate in
            given[[UInt8](SecCertificateCopyData(certificate) as Data)]
        }
        guard chain.first == leaf, let anchor = chain.last, roots.contains(anchor) else {
            throw SignedDataError(.verificationFailure, "Security verified a chain that does not run from the leaf to a given root.")
        }
        if strict, let problem = StrictChainCheck.problem(in: chain) {
            throw SignedDataError(.verificationFailure, "The certificate chain does not verify at \(moment): \(problem).")
        }
        return chain
    }
}
#endif
